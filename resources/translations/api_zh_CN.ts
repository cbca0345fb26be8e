<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>engine</name>
    <message>
        <source>Leave out suffix, or use a code model with fill-in-the-middle (such as Qwen2.5-Coder).</source>
        <translation>请去掉 suffix，或改用支持中间填充的代码模型（例如 Qwen2.5-Coder）。</translation>
    </message>
    <message>
        <source>Send the prompt as text.</source>
        <translation>请以文本形式发送提示。</translation>
    </message>
    <message>
        <source>suffix is not supported by this model: its tokenizer has no fill-in-the-middle tokens.</source>
        <translation>此模型不支持 suffix：它的分词器没有中间填充（fill-in-the-middle）标记。</translation>
    </message>
    <message>
        <source>suffix needs a text prompt (fill-in-the-middle), not token ids.</source>
        <translation>suffix 需要文本提示（中间填充），而不是 token ID。</translation>
    </message>
    <message>
        <source>Name one of the tools sent with the request.</source>
        <translation>请指定随请求发送的工具之一。</translation>
    </message>
    <message>
        <source>Send tools as OpenAI's API describes them.</source>
        <translation>请按照 OpenAI API 的说明发送工具。</translation>
    </message>
    <message>
        <source>The tools are not valid: {detail}</source>
        <translation>工具无效：{detail}</translation>
    </message>
    <message>
        <source>tool_choice names the function {name}, which is not among the tools.</source>
        <translation>tool_choice 指定的函数 {name} 不在所给的工具之中。</translation>
    </message>
    <message>
        <source>Leave out logit_bias for constrained turns.</source>
        <translation>受约束的回答请不要使用 logit_bias。</translation>
    </message>
    <message>
        <source>Send token ids of this model's tokenizer.</source>
        <translation>请发送此模型分词器的 token ID。</translation>
    </message>
    <message>
        <source>The prompt's token ids must be between 0 and {most} (got {value}).</source>
        <translation>提示的 token ID 必须在 0 到 {most} 之间（收到的是 {value}）。</translation>
    </message>
    <message>
        <source>logit_bias cannot be combined with a JSON schema or a required tool call.</source>
        <translation>logit_bias 不能与 JSON 模式或必需的工具调用同时使用。</translation>
    </message>
    <message>
        <source>A tool choice of a function must name the function.</source>
        <translation>选择函数作为工具时，必须写明函数名。</translation>
    </message>
    <message>
        <source>top_logprobs must be between 0 and {most} (got {value}).</source>
        <translation>top_logprobs 必须在 0 到 {most} 之间（收到的是 {value}）。</translation>
    </message>
</context>
</TS>

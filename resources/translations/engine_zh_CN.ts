<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>engine</name>
    <message>
        <source>The engine stopped unexpectedly (stopped by signal {signal}).</source>
        <translation>引擎意外停止（被信号 {signal} 终止）。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly (exit status {status}).</source>
        <translation>引擎意外停止（退出状态 {status}）。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly.</source>
        <translation>引擎意外停止。</translation>
    </message>
    <message>
        <source>LocalMind restarts it on your next message; if it keeps happening, try a smaller model or the CPU.</source>
        <translation>LocalMind 会在你发送下一条消息时重新启动它；如果反复发生，请换用更小的模型或改用 CPU。</translation>
    </message>
    <message>
        <source>The engine stopped responding, so LocalMind restarted it.</source>
        <translation>引擎没有响应，LocalMind 已将其重新启动。</translation>
    </message>
    <message>
        <source>Try again.</source>
        <translation>请重试。</translation>
    </message>
    <message>
        <source>Send your message again; if it keeps happening, try a smaller model or the CPU.</source>
        <translation>请重新发送你的消息；如果反复发生，请换用更小的模型或改用 CPU。</translation>
    </message>
    <message>
        <source>The engine is shutting down.</source>
        <translation>引擎正在关闭。</translation>
    </message>
    <message>
        <source>This copy of LocalMind cannot use {device}: {reason}.</source>
        <translation>此版本的 LocalMind 无法使用 {device}：{reason}。</translation>
    </message>
    <message>
        <source>Choose Automatic or CPU as the device in Settings (in the terminal: --device cpu).</source>
        <translation>请在“设置”中把设备选为“自动”或“CPU”（终端中：--device cpu）。</translation>
    </message>
    <message>
        <source>This kind of model ({kind}) is not supported by the installed onnxruntime-genai.</source>
        <translation>已安装的 onnxruntime-genai 不支持这类模型（{kind}）。</translation>
    </message>
    <message>
        <source>Try another model, or a newer version of LocalMind.</source>
        <translation>请换用其他模型，或使用更新版本的 LocalMind。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Prepare replies while I type</source>
        <translation>在我输入时预先准备回答</translation>
    </message>
    <message>
        <source>The model reads the chat and your message while you type, so the answer starts as soon as you press Enter. Off while the computer runs on battery.</source>
        <translation>在你输入时，模型会提前读取对话和你的消息，按下回车后回答立即开始。电脑使用电池供电时此功能关闭。</translation>
    </message>
    <message>
        <source>The memory a context takes depends on the model: load one to see it here.</source>
        <translation>上下文占用的内存取决于模型：加载一个模型后，这里会显示具体数值。</translation>
    </message>
    <message>
        <source>{model}: {tokens} tokens of context take {size} of memory ({per_token} per token), reserved as soon as the model is loaded, on top of the model itself.</source>
        <translation>{model}：{tokens} 个 token 的上下文占用 {size} 内存（每个 token {per_token}），模型加载后立即预留，另加模型本身占用的内存。</translation>
    </message>
    <message>
        <source>This model reads at most {tokens} tokens.</source>
        <translation>此模型最多读取 {tokens} 个 token。</translation>
    </message>
</context>
</TS>

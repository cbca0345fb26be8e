<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>engine</name>
    <message>
        <source>This conversation is too long for the model's context: it needs {count} tokens and {reserve} more for the reply, but the context holds {budget}.</source>
        <translation>这段对话超出了模型的上下文长度：需要 {count} 个 token，另需 {reserve} 个留给回答，而上下文只能容纳 {budget} 个。</translation>
    </message>
    <message>
        <source>Shorten the conversation or lower the reply's maximum length.</source>
        <translation>请缩短对话，或降低回答的最大长度。</translation>
    </message>
</context>
</TS>

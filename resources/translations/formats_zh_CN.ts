<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ThinkingSection</name>
    <message>
        <source>The model's thinking</source>
        <translation>模型的思考过程</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Thought for {seconds} s</source>
        <translation>思考了 {seconds} 秒</translation>
    </message>
    <message>
        <source>Thoughts</source>
        <translation>思考过程</translation>
    </message>
    <message>
        <source>Hide the thinking</source>
        <translation>隐藏思考过程</translation>
    </message>
    <message>
        <source>Show the thinking</source>
        <translation>显示思考过程</translation>
    </message>
</context>
<context>
    <name>ThinkingSwitch</name>
    <message>
        <source>Think before answering</source>
        <translation>先思考再回答</translation>
    </message>
    <message>
        <source>The model reasons step by step before it answers: slower, often better on hard questions.</source>
        <translation>模型会先逐步推理再作答：速度较慢，但难题上往往答得更好。</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Open a folder with an ONNX model: an ONNX Runtime GenAI package (with genai_config.json) or an Optimum / onnx-community export (config.json and onnx/model*.onnx).</source>
        <translation>打开包含 ONNX 模型的文件夹：ONNX Runtime GenAI 模型包（含 genai_config.json），或 Optimum / onnx-community 导出的模型（含 config.json 和 onnx/model*.onnx）。</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Preparing {name} for this computer (first time only)… {percent}%</source>
        <translation>正在为这台电脑优化 {name}（仅首次）… {percent}%</translation>
    </message>
</context>
</TS>

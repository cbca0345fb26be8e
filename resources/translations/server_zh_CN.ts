<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ServerSettingsTab</name>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Reading the keyring…</source>
        <translation>正在读取系统密钥环…</translation>
    </message>
    <message>
        <source>Other devices may use the model only with an API key: set one, or untick the box.</source>
        <translation>其他设备必须使用 API 密钥才能使用模型：请设置密钥，或取消勾选此项。</translation>
    </message>
    <message>
        <source>Enter the server's address, starting with http:// or https://.</source>
        <translation>请输入服务器地址，以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Connected to {host}: {count} models ({names}).</source>
        <translation>已连接到 {host}：共 {count} 个模型（{names}）。</translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation>本地 API 服务器</translation>
    </message>
    <message>
        <source>Share the loaded model with other programs</source>
        <translation>与其他程序共享已加载的模型</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Optional on this computer</source>
        <translation>仅本机使用时可不填</translation>
    </message>
    <message>
        <source>Allow other devices on my network (needs an API key)</source>
        <translation>允许我网络中的其他设备访问（需要 API 密钥）</translation>
    </message>
    <message>
        <source>An OpenAI-compatible API at http://127.0.0.1:{port}/v1. The window and the API take turns on the model; the window shows when an API request is running.</source>
        <translation>兼容 OpenAI 的 API 位于 http://127.0.0.1:{port}/v1。窗口和 API 轮流使用模型；有 API 请求正在运行时，窗口会显示出来。</translation>
    </message>
    <message>
        <source>Remote models</source>
        <translation>远程模型</translation>
    </message>
    <message>
        <source>Use models on another computer</source>
        <translation>使用另一台计算机上的模型</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <source>If the server needs one</source>
        <translation>如果服务器需要</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LocalMind). Its models appear in the model list, marked: your messages are sent to that computer.</source>
        <translation>任何兼容 OpenAI 的服务器（vLLM、Ollama、llama.cpp、LocalMind）。其模型会出现在模型列表中并有标注：您的消息会发送到那台计算机。</translation>
    </message>
</context>
<context>
    <name>ApiStatusLabel</name>
    <message>
        <source>API: answering a request…</source>
        <translation>API：正在处理请求…</translation>
    </message>
    <message>
        <source>API on</source>
        <translation>API 已开启</translation>
    </message>
    <message>
        <source>The local API server is running at {url}</source>
        <translation>本地 API 服务器正在 {url} 运行</translation>
    </message>
</context>
<context>
    <name>LocalMind</name>
    <message>
        <source>{name} — runs on {host}</source>
        <translation>{name} — 运行于 {host}</translation>
    </message>
    <message>
        <source>Runs on {host}: your messages leave this computer.</source>
        <translation>运行于 {host}：您的消息会离开这台计算机。</translation>
    </message>
    <message>
        <source>The local API server could not start.</source>
        <translation>本地 API 服务器无法启动。</translation>
    </message>
    <message>
        <source>The keyring could not be used.</source>
        <translation>无法使用系统密钥环。</translation>
    </message>
</context>
</TS>

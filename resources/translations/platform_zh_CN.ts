<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CrashDialog</name>
    <message>
        <source>LocalMind: something went wrong</source>
        <translation>LocalMind：出现问题</translation>
    </message>
    <message>
        <source>LocalMind closed unexpectedly the last time it ran.</source>
        <translation>LocalMind 上次运行时意外关闭。</translation>
    </message>
    <message>
        <source>LocalMind ran into {count} unexpected errors.</source>
        <translation>LocalMind 遇到了 {count} 个意外错误。</translation>
    </message>
    <message>
        <source>LocalMind ran into an unexpected error.</source>
        <translation>LocalMind 遇到了一个意外错误。</translation>
    </message>
    <message>
        <source>Your chats are saved. If something no longer works, restart LocalMind. The details below were written to {path}; nothing was sent anywhere. To report the problem, copy them into your report.</source>
        <translation>你的对话已保存。如果有功能不再正常工作，请重新启动 LocalMind。以下详细信息已写入 {path}，没有发送到任何地方。如需报告问题，请将其复制到你的报告中。</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
</TS>

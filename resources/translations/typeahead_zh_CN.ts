<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Composer</name>
    <message>
        <source>Will be sent when the model is ready (Esc: keep it unsent)</source>
        <translation>模型就绪后将自动发送（按 Esc 保留不发送）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Your message will be sent when the model is ready.</source>
        <translation>模型就绪后会立即发送你的消息。</translation>
    </message>
    <message>
        <source>Edit it before then to hold it back (then press Enter again), or press Esc to keep it unsent.</source>
        <translation>在此之前修改它即可暂缓发送（改完再按 Enter），或按 Esc 保留不发送。</translation>
    </message>
</context>
</TS>

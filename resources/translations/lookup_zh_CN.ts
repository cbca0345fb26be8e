<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ModelManagerPage</name>
    <message>
        <source>Stopped looking up {repo}.</source>
        <translation>已停止查找 {repo}。</translation>
    </message>
</context>
</TS>

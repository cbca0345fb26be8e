<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChatHeader</name>
    <message>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <source>Settings (Ctrl+,)</source>
        <translation>设置 (Ctrl+,)</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Open a model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <source>Get more models…</source>
        <translation>获取更多模型…</translation>
    </message>
    <message>
        <source>Choose the model</source>
        <translation>选择模型</translation>
    </message>
</context>
<context>
    <name>AlreadyRunning</name>
    <message>
        <location filename="../../src/localmind/ui/already_running.py" line="28"/>
        <source>LocalMind is already running.</source>
        <translation>LocalMind 已在运行。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/already_running.py" line="29"/>
        <source>Only one LocalMind window can use a data folder at a time ({folder}). Switch to the window that is open, or close it and start LocalMind again.</source>
        <translation>一个数据文件夹（{folder}）同一时间只能由一个 LocalMind 窗口使用。请切换到已打开的窗口，或将其关闭后再启动 LocalMind。</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <location filename="../../src/localmind/ui/banner.py" line="83"/>
        <location filename="../../src/localmind/ui/banner.py" line="84"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ChatSession</name>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="157"/>
        <source>This conversation cannot be opened.</source>
        <translation>无法打开此对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="210"/>
        <source>No model is loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="210"/>
        <source>Open a model folder or get a model first.</source>
        <translation>请先打开模型文件夹或获取一个模型。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="277"/>
        <source>The chat settings are not valid.</source>
        <translation>对话设置无效。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="327"/>
        <location filename="../../src/localmind/models/chat_session.py" line="335"/>
        <source>The answer could not be finished.</source>
        <translation>回答未能完成。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="226"/>
        <location filename="../../src/localmind/models/chat_session.py" line="349"/>
        <source>Your message was not sent.</source>
        <translation>你的消息未发送。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="351"/>
        <source>No answer was generated.</source>
        <translation>未生成回答。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/models/chat_session.py" line="371"/>
        <source>The answer could not be saved.</source>
        <translation>无法保存回答。</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../src/localmind/ui/chat_view.py" line="62"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat_view.py" line="78"/>
        <source>Messages</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat_view.py" line="109"/>
        <source>Scroll to the latest message</source>
        <translation>滚动到最新消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/markdown.py" line="132"/>
        <source>Link not opened: {url}</source>
        <translation>链接未打开：{url}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/markdown.py" line="187"/>
        <source>Image: {name}</source>
        <translation>图片：{name}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/markdown.py" line="189"/>
        <source>Image</source>
        <translation>图片</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/markdown.py" line="193"/>
        <source>Not loaded: {url}</source>
        <translation>未加载：{url}</translation>
    </message>
</context>
<context>
    <name>CodeBlockWidget</name>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="197"/>
        <source>Code block {language}</source>
        <translation>代码块 {language}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="202"/>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="203"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="203"/>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="223"/>
        <source>Code</source>
        <translation>代码</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>An answer is being written. Wait for it, or stop it with Esc, then press Enter again.</source>
        <translation>正在生成回答。请等它完成，或按 Esc 停止，然后再按一次 Enter。</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>请先打开一个模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="231"/>
        <source>Stop (Esc)</source>
        <translation>停止 (Esc)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="232"/>
        <source>Stop generating</source>
        <translation>停止生成</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="237"/>
        <source>Send (Enter)</source>
        <translation>发送 (Enter)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="238"/>
        <source>Send message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="250"/>
        <source>Message LocalMind…</source>
        <translation>给 LocalMind 发消息…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="251"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="252"/>
        <source>Answer again</source>
        <translation>重新回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="253"/>
        <source>Ask the model to answer your last message</source>
        <translation>让模型回答你的最后一条消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="254"/>
        <source>Regenerate the last answer</source>
        <translation>重新生成上一个回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="255"/>
        <source>Enter to send · Shift+Enter for a new line</source>
        <translation>Enter 发送 · Shift+Enter 换行</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="256"/>
        <source>Editing an earlier message — sending it continues the chat from there.</source>
        <translation>正在编辑之前的消息——发送后，对话将从这里继续。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/composer.py" line="257"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>CopyButton</name>
    <message>
        <location filename="../../src/localmind/ui/chat/segments.py" line="169"/>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="145"/>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="146"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="147"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="157"/>
        <source>Asking Hugging Face for the file list…</source>
        <translation>正在向 Hugging Face 获取文件列表…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="159"/>
        <source>Installing…</source>
        <translation>正在安装…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="161"/>
        <source>{done} of {total} · {speed}/s · {eta} left · file {n} of {count}</source>
        <translation>{done} / {total} · {speed}/秒 · 剩余 {eta} · 第 {n} 个文件，共 {count} 个</translation>
    </message>
</context>
<context>
    <name>LocalMind</name>
    <message>
        <source>The local API server could not start.</source>
        <translation>本地 API 服务器无法启动。</translation>
    </message>
    <message>
        <source>You are still chatting with {name}.</source>
        <translation>你仍在使用 {name} 聊天。</translation>
    </message>
    <message>
        <source>Could not write {path}: {reason}.</source>
        <translation>无法写入 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Choose another folder.</source>
        <translation>请选择其他文件夹。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="125"/>
        <source>The model you used last is no longer there.</source>
        <translation>上次使用的模型已不在原处。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="126"/>
        <source>{path} was moved or deleted. Open a model folder to continue.</source>
        <translation>{path} 已被移动或删除。请打开一个模型文件夹以继续。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="223"/>
        <source>The model loaded with warnings.</source>
        <translation>模型已加载，但有警告。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="230"/>
        <source>Open another model folder…</source>
        <translation>打开其他模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="233"/>
        <source>Get a model</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="235"/>
        <source>The model could not be loaded.</source>
        <translation>无法加载模型。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="236"/>
        <source>Your chats are still here; you can read and search them meanwhile.</source>
        <translation>你的对话都还在，期间可以照常查看和搜索。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="268"/>
        <source>The chat could not be deleted.</source>
        <translation>无法删除此对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="276"/>
        <source>The chat could not be restored.</source>
        <translation>无法恢复此对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="284"/>
        <source>Search failed.</source>
        <translation>搜索失败。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="356"/>
        <source>JSON (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="356"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown 文件 (*.md)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="358"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="365"/>
        <source>Export failed.</source>
        <translation>导出失败。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="367"/>
        <source>Exported {count} chat(s) to {path}.</source>
        <translation>已将 {count} 个对话导出到 {path}。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="371"/>
        <source>Import conversations</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="371"/>
        <source>LocalMind export (*.json)</source>
        <translation>LocalMind 导出文件 (*.json)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="378"/>
        <source>Import failed.</source>
        <translation>导入失败。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="380"/>
        <source>Imported {count} chat(s).</source>
        <translation>已导入 {count} 个对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/app.py" line="431"/>
        <source>Settings could not be saved.</source>
        <translation>无法保存设置。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>No model is loaded. Open a model folder or get a model first (the model picker above).</source>
        <translation>尚未加载模型。请先打开模型文件夹或获取一个模型（使用上方的模型选择器）。</translation>
    </message>
    <message>
        <source>Your message was not sent yet.</source>
        <translation>你的消息尚未发送。</translation>
    </message>
    <message>
        <source>It stays in the box.</source>
        <translation>它仍保留在输入框中。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="237"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="254"/>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="254"/>
        <source>Open a model first</source>
        <translation>请先打开一个模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="259"/>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="263"/>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="264"/>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="304"/>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="327"/>
        <source>Copied the last answer.</source>
        <translation>已复制上一个回答。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="333"/>
        <source>This link was not opened.</source>
        <translation>未打开此链接。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="333"/>
        <source>Only web and e-mail links open from a chat.</source>
        <translation>对话中只能打开网页和电子邮件链接。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="396"/>
        <source>Settings (Ctrl+,)</source>
        <translation>设置 (Ctrl+,)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="397"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="398"/>
        <source>Open a model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="399"/>
        <source>Get more models…</source>
        <translation>获取更多模型…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="400"/>
        <source>Choose the model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="401"/>
        <source>← Back to chat</source>
        <translation>← 返回对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/main_window.py" line="402"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
</context>
<context>
    <name>MessageWidget</name>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="128"/>
        <source>Your message</source>
        <translation>你的消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="139"/>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="139"/>
        <source>Assistant&apos;s answer</source>
        <translation>助手的回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="149"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="149"/>
        <source>Copy message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="153"/>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="153"/>
        <source>Edit message</source>
        <translation>编辑消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="155"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="155"/>
        <source>Regenerate answer</source>
        <translation>重新生成回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="158"/>
        <source>Message status</source>
        <translation>消息状态</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="317"/>
        <source>Show less</source>
        <translation>收起</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="317"/>
        <source>Show more</source>
        <translation>展开</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="375"/>
        <source>Error</source>
        <translation>出错</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/chat/message_widget.py" line="375"/>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
</context>
<context>
    <name>ModelManagerPage</name>
    <message>
        <source>{name} is installed, verified and loading in the chat.</source>
        <translation>{name} 已安装并校验完毕，正在载入聊天。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="373"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="374"/>
        <source>Enter a Hugging Face token…</source>
        <translation>输入 Hugging Face 令牌…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="375"/>
        <source>Recommended to start</source>
        <translation>推荐入门模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="376"/>
        <location filename="../../src/localmind/ui/model_manager.py" line="379"/>
        <location filename="../../src/localmind/ui/model_manager.py" line="381"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="377"/>
        <source>Ready-to-run models</source>
        <translation>可直接运行的模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="379"/>
        <location filename="../../src/localmind/ui/model_manager.py" line="391"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="379"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="379"/>
        <source>On this computer</source>
        <translation>本机情况</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="379"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="382"/>
        <source>Model page</source>
        <translation>模型主页</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="383"/>
        <source>Add a model from Hugging Face</source>
        <translation>从 Hugging Face 添加模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="384"/>
        <source>owner/model, e.g. microsoft/Phi-3.5-mini-instruct-onnx</source>
        <translation>所有者/模型，例如 microsoft/Phi-3.5-mini-instruct-onnx</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="385"/>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="386"/>
        <source>Download this folder</source>
        <translation>下载此文件夹</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="387"/>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="388"/>
        <source>No downloads.</source>
        <translation>没有下载任务。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="389"/>
        <source>Installed models</source>
        <translation>已安装的模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="391"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="391"/>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="391"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="393"/>
        <source>Load in chat</source>
        <translation>在对话中加载</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="394"/>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="395"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="396"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="397"/>
        <source>Import folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="398"/>
        <source>Import .zip…</source>
        <translation>导入 .zip…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="412"/>
        <source>Fits</source>
        <translation>可以运行</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="413"/>
        <source>Fits, but tight: close other programs</source>
        <translation>可以运行，但比较吃紧：请关闭其他程序</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="414"/>
        <source>Too big for this computer&apos;s memory</source>
        <translation>超出本机内存容量</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="415"/>
        <source>Not enough free disk space</source>
        <translation>磁盘剩余空间不足</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="423"/>
        <source>Used in place from {path}</source>
        <translation>直接使用原位置：{path}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="424"/>
        <source>Imported from {path}</source>
        <translation>导入自 {path}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="427"/>
        <location filename="../../src/localmind/ui/model_manager.py" line="428"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="430"/>
        <source>This computer: {ram} memory, {disk} free disk space.</source>
        <translation>本机：内存 {ram}，磁盘剩余空间 {disk}。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="439"/>
        <source>{name} ({size}) — {description}</source>
        <translation>{name}（{size}）——{description}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="459"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="459"/>
        <source>Damaged: {problem}</source>
        <translation>已损坏：{problem}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="460"/>
        <source>used in place</source>
        <translation>原位使用</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="471"/>
        <location filename="../../src/localmind/ui/model_manager.py" line="605"/>
        <source>Paused — resume to continue where it stopped.</source>
        <translation>已暂停——继续后将从中断处接着下载。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="523"/>
        <source>{name} is already installed.</source>
        <translation>{name} 已经安装。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="533"/>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="547"/>
        <source>Pick a model in the list first.</source>
        <translation>请先在列表中选择一个模型。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="550"/>
        <source>Download anyway?</source>
        <translation>仍要下载吗？</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="588"/>
        <source>{name} is installed and verified. Select it and press “Load in chat”.</source>
        <translation>{name} 已安装并通过校验。选中它，然后点击“在对话中加载”。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="595"/>
        <source>Stopped: {reason}</source>
        <translation>已停止：{reason}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="603"/>
        <source>Download cancelled; its partial files were deleted.</source>
        <translation>下载已取消，未完成的文件已删除。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="613"/>
        <source>Token saved in the system keyring.</source>
        <translation>令牌已保存到系统密钥环。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="616"/>
        <source>No system keyring was found: the token is kept only until LocalMind closes (it is never written to a file).</source>
        <translation>未找到系统密钥环：令牌只保留到 LocalMind 关闭为止（绝不会写入文件）。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="631"/>
        <source>Looking up {repo}…</source>
        <translation>正在查找 {repo}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="640"/>
        <source>{repo} holds no onnxruntime-genai model (no genai_config.json).</source>
        <translation>{repo} 中没有 onnxruntime-genai 模型（缺少 genai_config.json）。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="651"/>
        <source>Pick the folder for your device (a cpu folder runs everywhere) and download it.</source>
        <translation>请选择适合你设备的文件夹（cpu 文件夹在任何电脑上都能运行）并下载。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="666"/>
        <source>{name} is damaged ({problem}). Verify it, or delete it and download it again.</source>
        <translation>{name} 已损坏（{problem}）。请校验，或删除后重新下载。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="677"/>
        <source>Verifying {name}…</source>
        <translation>正在校验 {name}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="690"/>
        <source>LocalMind forgets it; the files in {path} stay where they are.</source>
        <translation>LocalMind 将不再记录它；{path} 中的文件会保留在原处。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="694"/>
        <source>This deletes {size} from {path}.</source>
        <translation>这将从 {path} 删除 {size}。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="697"/>
        <source>Delete {name}?</source>
        <translation>删除 {name}？</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="701"/>
        <source>Importing {path}…</source>
        <translation>正在导入 {path}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="708"/>
        <source>Import a model folder</source>
        <translation>导入模型文件夹</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="711"/>
        <source>Copy the model into LocalMind&apos;s folder?</source>
        <translation>要把模型复制到 LocalMind 的文件夹吗？</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="712"/>
        <source>Yes copies it (safe if the original moves); No uses it where it is.</source>
        <translation>选“是”会复制一份（即使原文件被移动也不受影响）；选“否”则在原位置使用。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="717"/>
        <source>Import a zipped model</source>
        <translation>导入压缩的模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="717"/>
        <source>Zip files (*.zip)</source>
        <translation>Zip 文件 (*.zip)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="735"/>
        <source>All {n} files match their hashes.</source>
        <translation>全部 {n} 个文件的哈希值均匹配。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="738"/>
        <source>Damaged: {files}. Delete the model and download it again.</source>
        <translation>已损坏：{files}。请删除该模型后重新下载。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="744"/>
        <source>Deleted {name}.</source>
        <translation>已删除 {name}。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="746"/>
        <source>Imported {name}.</source>
        <translation>已导入 {name}。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="764"/>
        <source>Hugging Face token</source>
        <translation>Hugging Face 令牌</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/model_manager.py" line="765"/>
        <source>Paste an access token from huggingface.co/settings/tokens (read access is enough):</source>
        <translation>请粘贴来自 huggingface.co/settings/tokens 的访问令牌（只读权限即可）：</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="334"/>
        <source>Saved as the defaults for new chats when you press OK.</source>
        <translation>按“确定”后，将保存为新对话的默认值。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="356"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="359"/>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="360"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="361"/>
        <source>This chat</source>
        <translation>当前对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="362"/>
        <source>App</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="364"/>
        <source>These settings apply to this chat only.</source>
        <translation>这些设置仅对当前对话生效。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="366"/>
        <source>These settings apply to the new chat you are about to start.</source>
        <translation>这些设置将用于你即将开始的新对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="368"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="372"/>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="370"/>
        <source>For example: You are a concise assistant. Answer in plain English.</source>
        <translation>例如：你是一个简洁的助手，请用通俗易懂的中文回答。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="373"/>
        <source>Style</source>
        <translation>风格</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="374"/>
        <source>Precise</source>
        <translation>精确</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="374"/>
        <source>Balanced</source>
        <translation>均衡</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="374"/>
        <source>Creative</source>
        <translation>创意</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="376"/>
        <source>Focused, repeatable answers</source>
        <translation>专注、可重复的回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="377"/>
        <source>A good default for most chats</source>
        <translation>适合大多数对话的默认选择</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="378"/>
        <source>More varied and surprising answers</source>
        <translation>更多样、更出人意料的回答</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="385"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="386"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="387"/>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="388"/>
        <source>Max answer length (tokens)</source>
        <translation>最大回答长度（token）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="389"/>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="392"/>
        <source>Higher is more random; 0 always picks the likeliest word.</source>
        <translation>数值越高越随机；为 0 时总是选择可能性最大的词。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="393"/>
        <source>Only consider the likeliest words that together make up this share.</source>
        <translation>只考虑累计概率达到该比例的最可能的词。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="394"/>
        <source>Only consider this many likeliest words (0: no limit).</source>
        <translation>只考虑这么多个最可能的词（0 表示不限制）。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="395"/>
        <source>The longest answer the model may write.</source>
        <translation>模型单次回答的最大长度。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="396"/>
        <source>Above 1 discourages repeating the same words.</source>
        <translation>大于 1 时会抑制重复相同的词语。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="402"/>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="403"/>
        <source>Reset to defaults</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="404"/>
        <source>Use for new chats</source>
        <translation>用于新对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="406"/>
        <source>Make these values and the system prompt the defaults for new chats</source>
        <translation>将这些数值和系统提示词设为新对话的默认值</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="409"/>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="410"/>
        <source>Engine</source>
        <translation>推理引擎</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="411"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="430"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="412"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="431"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="413"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="432"/>
        <source>Run models on</source>
        <translation>运行设备</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="414"/>
        <source>Context size (tokens)</source>
        <translation>上下文大小（token）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="415"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="434"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="416"/>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="419"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="416"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="416"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="422"/>
        <source>Automatic (best available)</source>
        <translation>自动（选择最佳可用设备）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="423"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="424"/>
        <source>NVIDIA GPU (CUDA)</source>
        <translation>NVIDIA GPU（CUDA）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="425"/>
        <source>GPU via DirectML (Windows)</source>
        <translation>通过 DirectML 使用 GPU（Windows）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="426"/>
        <source>Apple Core ML (macOS)</source>
        <translation>Apple Core ML（macOS）</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="433"/>
        <source>Context size</source>
        <translation>上下文大小</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="435"/>
        <source>The language changes at once; a few parts follow after a restart.</source>
        <translation>语言会立即切换；少数部分需重启后更新。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/settings_dialog.py" line="438"/>
        <source>A larger context remembers more of a long chat but needs more memory. Changes here reload the model.</source>
        <translation>上下文越大，长对话中能记住的内容越多，但占用的内存也越多。修改这里的设置会重新加载模型。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="285"/>
        <source>Deleted “{title}”</source>
        <translation>已删除“{title}”</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="311"/>
        <location filename="../../src/localmind/ui/sidebar.py" line="395"/>
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="313"/>
        <source>Nothing matches “{query}”.</source>
        <translation>没有与“{query}”匹配的内容。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="318"/>
        <location filename="../../src/localmind/ui/sidebar.py" line="394"/>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="320"/>
        <source>Your chats will appear here.</source>
        <translation>你的对话会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="353"/>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="355"/>
        <source>Export as Markdown…</source>
        <translation>导出为 Markdown…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="357"/>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="360"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="388"/>
        <location filename="../../src/localmind/ui/sidebar.py" line="390"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="389"/>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>开始新对话 (Ctrl+N)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="391"/>
        <location filename="../../src/localmind/ui/sidebar.py" line="392"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="393"/>
        <source>Search titles and messages (Ctrl+F)</source>
        <translation>搜索标题和消息 (Ctrl+F)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="396"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="397"/>
        <location filename="../../src/localmind/ui/sidebar.py" line="398"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="399"/>
        <source>Settings (Ctrl+,)</source>
        <translation>设置 (Ctrl+,)</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="400"/>
        <source>More</source>
        <translation>更多</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="401"/>
        <source>Import and export</source>
        <translation>导入和导出</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="402"/>
        <source>Import conversations…</source>
        <translation>导入对话…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="403"/>
        <source>Export all as Markdown…</source>
        <translation>全部导出为 Markdown…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/sidebar.py" line="404"/>
        <source>Export all as JSON…</source>
        <translation>全部导出为 JSON…</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Details:</source>
        <translation>详细信息：</translation>
    </message>
    <message>
        <source>it failed while answering before, so this model runs on the processor</source>
        <translation>之前回答时出错，因此此模型在处理器上运行</translation>
    </message>
    <message>
        <source>this copy of LocalMind does not include the support for it</source>
        <translation>此 LocalMind 安装不包含对它的支持</translation>
    </message>
    <message>
        <source>no working driver for it was found</source>
        <translation>未找到可用的驱动程序</translation>
    </message>
    <message>
        <source>it has too little free memory for this model</source>
        <translation>它的可用内存不足以运行此模型</translation>
    </message>
    <message>
        <source>it could not be started</source>
        <translation>无法启动它</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="118"/>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="126"/>
        <source>on {device} ⓘ</source>
        <translation>运行于 {device} ⓘ</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="127"/>
        <source>Running on {device}. Not used:</source>
        <translation>正在 {device} 上运行。未使用：</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="131"/>
        <source>on {device}</source>
        <translation>运行于 {device}</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="134"/>
        <source>Model failed to load</source>
        <translation>模型加载失败</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="134"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="147"/>
        <source>First token {seconds} s</source>
        <translation>首字 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="149"/>
        <source>{rate} tok/s</source>
        <translation>{rate} token/秒</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="154"/>
        <source>⚠ {count} older message(s) left out to fit the context</source>
        <translation>⚠ 为适应上下文，省略了 {count} 条较早的消息</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="158"/>
        <source>The model only sees the most recent part of a long chat. Start a new chat or raise the context size in Settings.</source>
        <translation>在长对话中，模型只能看到最近的部分。你可以开始新对话，或在设置中增大上下文大小。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="168"/>
        <source>{used} / {budget} tokens</source>
        <translation>{used} / {budget} token</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="174"/>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/status_bar.py" line="175"/>
        <source>How much of the model&apos;s context this chat uses</source>
        <translation>当前对话占用了多少模型上下文</translation>
    </message>
</context>
<context>
    <name>TypingDots</name>
    <message>
        <location filename="../../src/localmind/ui/chat/decor.py" line="36"/>
        <source>Writing an answer</source>
        <translation>正在写回答</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Already downloaded a model? Open its folder.</source>
        <translation>已经下载了模型？打开它所在的文件夹。</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <source>LocalMind opens ONNX models: an ONNX Runtime GenAI package (with genai_config.json) or an Optimum / onnx-community export (config.json and onnx/model*.onnx).</source>
        <translation>LocalMind 可打开 ONNX 模型：ONNX Runtime GenAI 包（含 genai_config.json），或 Optimum / onnx-community 导出（config.json 和 onnx/model*.onnx）。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="210"/>
        <source>How can I help you today?</source>
        <translation>今天我能帮你做什么？</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="212"/>
        <source>Ask anything. {model} answers right here on your computer.</source>
        <translation>尽管问吧。{model} 就在你的电脑上作答。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="215"/>
        <source>Getting {model} ready…</source>
        <translation>正在准备 {model}…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="216"/>
        <source>Loading the model into memory. You can read your earlier chats meanwhile.</source>
        <translation>正在将模型载入内存。期间你可以查看之前的对话。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="218"/>
        <source>Welcome to LocalMind</source>
        <translation>欢迎使用 LocalMind</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="221"/>
        <source>Chat with an AI model that runs entirely on your computer. To begin, add a model — it takes a few minutes, once.</source>
        <translation>与完全在你电脑上运行的 AI 模型聊天。首先请添加一个模型——只需几分钟，而且只需一次。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="228"/>
        <location filename="../../src/localmind/ui/welcome.py" line="233"/>
        <source>Get a model</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="230"/>
        <source>Pick a small, capable model from the catalog and download it. Recommended.</source>
        <translation>从模型目录中挑选一个小巧而能干的模型并下载。推荐。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="232"/>
        <source>Browse models</source>
        <translation>浏览模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="234"/>
        <source>Use a model you have</source>
        <translation>使用已有模型</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="236"/>
        <source>Open a folder with an ONNX Runtime GenAI model (it contains genai_config.json).</source>
        <translation>打开包含 ONNX Runtime GenAI 模型的文件夹（其中有 genai_config.json）。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="238"/>
        <source>Open a model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="239"/>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="242"/>
        <source>Explain a concept</source>
        <translation>解释概念</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="242"/>
        <source>Explain how a rainbow forms, simply.</source>
        <translation>用简单的话解释彩虹是怎么形成的。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="243"/>
        <source>Write something</source>
        <translation>帮我写作</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="243"/>
        <source>Write a short, friendly note inviting my team to lunch on Friday.</source>
        <translation>写一段简短友好的消息，邀请我的团队周五一起吃午饭。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="244"/>
        <source>Summarize</source>
        <translation>总结</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="244"/>
        <source>Summarize the following text in three bullet points:

</source>
        <translation>用三个要点总结下面的文字：

</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="245"/>
        <source>Code</source>
        <translation>编程</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="245"/>
        <source>Write a Python function that checks whether a word is a palindrome.</source>
        <translation>写一个 Python 函数，判断一个单词是否为回文。</translation>
    </message>
    <message>
        <location filename="../../src/localmind/ui/welcome.py" line="249"/>
        <source>🔒 Private by design: nothing you type leaves this computer.</source>
        <translation>🔒 隐私至上：你输入的任何内容都不会离开这台电脑。</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Copy the model into LocalMind's folder?</source>
        <translation>要把模型复制到 LocalMind 的文件夹吗？</translation>
    </message>
    <message>
        <source>{folder}

Copying keeps the model working if the original folder moves or is deleted; it uses as much disk space again. Using it where it is takes no space, but the folder must stay where it is.</source>
        <translation>{folder}

复制后，即使原文件夹被移动或删除，模型也能继续使用，但会再占用同样多的磁盘空间。在原位置使用不占额外空间，但该文件夹必须保持不动。</translation>
    </message>
    <message>
        <source>Copy it</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Use it where it is</source>
        <translation>在原位置使用</translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DocumentsPage</name>
    <message>
        <source>Add documents</source>
        <translation>添加文档</translation>
    </message>
    <message>
        <source>Documents (%1)</source>
        <translation>文档 (%1)</translation>
    </message>
    <message>
        <source>Add a folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <source>Preparing…</source>
        <translation>正在准备…</translation>
    </message>
    <message>
        <source>Indexing %1 of %2: %3</source>
        <translation>正在索引第 %1 个，共 %2 个：%3</translation>
    </message>
    <message>
        <source>Stopped. Files not indexed yet are picked up next time.</source>
        <translation>已停止。尚未索引的文件会在下次继续。</translation>
    </message>
    <message>
        <source>Indexing stopped: %1</source>
        <translation>索引已停止：%1</translation>
    </message>
    <message>
        <source>Indexed</source>
        <translation>已索引</translation>
    </message>
    <message>
        <source>Changed</source>
        <translation>已更改</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Add files or folders and LocalMind answers from them when “Use my documents” is on in a chat. They are read and indexed on this computer and never leave it. PDF, Word (.docx), HTML, Markdown and text files. Drop them here or use the buttons.</source>
        <translation>添加文件或文件夹后，在对话中打开“使用我的文档”，LocalMind 就会根据它们回答。文件只在这台电脑上读取和索引，绝不会离开这台电脑。支持 PDF、Word（.docx）、HTML、Markdown 和文本文件。可以拖放到这里，或使用下面的按钮。</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Re-index</source>
        <translation>重新索引</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>No documents yet. Drop files or a folder here, or use Add files…</source>
        <translation>还没有文档。把文件或文件夹拖到这里，或点击“添加文件…”。</translation>
    </message>
    <message>
        <source>No text found: it looks like a scan. Run text recognition (OCR) on it, then add it again.</source>
        <translation>未找到文字：这看起来是扫描件。请先做文字识别（OCR），再重新添加。</translation>
    </message>
    <message>
        <source>No text found: the file is empty.</source>
        <translation>未找到文字：文件是空的。</translation>
    </message>
    <message>
        <source>The file looks damaged. Save a fresh copy from its own program and add that.</source>
        <translation>文件似乎已损坏。请用它自己的程序另存一份新副本，再添加。</translation>
    </message>
    <message>
        <source>The PDF is password-protected. Save a copy without the password and add that.</source>
        <translation>该 PDF 受密码保护。请另存一份不带密码的副本，再添加。</translation>
    </message>
    <message>
        <source>This kind of file is not supported.</source>
        <translation>不支持这种类型的文件。</translation>
    </message>
    <message>
        <source>General</source>
        <translation>通用</translation>
    </message>
    <message>
        <source>Too large to index. Split it into smaller files and add those.</source>
        <translation>文件太大，无法索引。请把它拆分成较小的文件，再添加这些文件。</translation>
    </message>
    <message>
        <source>This is not text: the file holds binary data (a program, a picture or an archive).</source>
        <translation>这不是文本：该文件包含二进制数据（程序、图片或压缩包）。</translation>
    </message>
    <message>
        <source>The PDF's text comes out as gibberish (its fonts do not say which letters they draw). Print it to a new PDF or run text recognition (OCR), then add that copy.</source>
        <translation>该 PDF 的文字读出来是乱码（其字体没有说明所绘制的是哪些字符）。请将其打印为新的 PDF 或进行文字识别（OCR），再添加该副本。</translation>
    </message>
    <message>
        <source>Downloading search by meaning: its progress is on the Models page. Searching by words until then.</source>
        <translation>正在下载“按含义搜索”：进度显示在“模型”页面。在此之前按字词搜索。</translation>
    </message>
    <message>
        <source>Search by meaning is on, together with search by words.</source>
        <translation>已开启按含义搜索，同时按字词搜索。</translation>
    </message>
    <message>
        <source>Search by meaning uses an embedding model that runs on this computer: {name}. Each file is split into pieces of text (passages); a question finds them by their words and by their meaning.</source>
        <translation>按含义搜索使用在这台电脑上运行的嵌入模型：{name}。每个文件会被切分成若干段文字（段落）；提问时按字词和含义查找它们。</translation>
    </message>
    <message>
        <source>Searching by words only. Search by meaning also finds text worded differently from your question, or in another language (a download of about 140 MB).</source>
        <translation>目前仅按字词搜索。按含义搜索还能找到与提问措辞不同或使用其他语言的文字（需下载约 140 MB）。</translation>
    </message>
    <message>
        <source>Search by meaning uses an embedding model that runs on this computer: multilingual-e5-small, about 140 MB. Each file is split into pieces of text (passages); without the model they are found by keyword search.</source>
        <translation>按含义搜索使用在这台电脑上运行的嵌入模型：multilingual-e5-small，约 140 MB。每个文件会被切分成若干段文字（段落）；没有该模型时按关键词查找。</translation>
    </message>
    <message>
        <source>Passages (pieces of text searched and quoted): %1</source>
        <translation>段落（用于搜索和引用的文字片段）：%1</translation>
    </message>
    <message>
        <source>1 piece of text</source>
        <translation>1 段文字</translation>
    </message>
    <message>
        <source>%1 pieces of text</source>
        <translation>%1 段文字</translation>
    </message>
    <message>
        <source>Get search by meaning</source>
        <translation>获取按含义搜索</translation>
    </message>
    <message>
        <source>Downloads the embedding model (about 140 MB) on the Models page</source>
        <translation>在“模型”页面下载嵌入模型（约 140 MB）</translation>
    </message>
    <message>
        <source>Add to group:</source>
        <translation>添加到分组：</translation>
    </message>
    <message>
        <source>Files are added to this group (a collection). “Use my documents” in a chat can answer from all groups or from the ones you choose. Type a new name to start a group.</source>
        <translation>文件会添加到此分组（集合）。对话中的“使用我的文档”可以根据全部分组或你选择的分组回答。输入新名称即可新建分组。</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
</context>
<context>
    <name>DocumentsSwitch</name>
    <message>
        <source>All documents</source>
        <translation>全部文档</translation>
    </message>
    <message>
        <source>Use my documents: %1</source>
        <translation>使用我的文档：%1</translation>
    </message>
    <message>
        <source>Use my documents</source>
        <translation>使用我的文档</translation>
    </message>
    <message>
        <source>Answer from the documents you added, citing the file and page (Ctrl+Shift+D)</source>
        <translation>根据你添加的文档回答，并注明文件和页码（Ctrl+Shift+D）</translation>
    </message>
</context>
<context>
    <name>SourceDialog</name>
    <message>
        <source>Open the file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>This passage is no longer in your documents (the file was removed or changed).</source>
        <translation>这个段落已不在你的文档中（文件已被移除或更改）。</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Open at page {page}</source>
        <translation>在第 {page} 页打开</translation>
    </message>
</context>
<context>
    <name>DocumentsFeature</name>
    <message>
        <source>{count} passage(s) from your documents were read while you typed the question.</source>
        <translation>在您输入问题时，已预先读取了您文档中的 {count} 段内容。</translation>
    </message>
    <message>
        <source>Installing the embedding model</source>
        <translation>安装嵌入模型</translation>
    </message>
    <message>
        <source>Download an ONNX export of multilingual-e5-small (model.onnx and tokenizer.json) and run: localmind docs embedder FOLDER. Documents already added are then embedded; nothing leaves this computer.</source>
        <translation>下载 multilingual-e5-small 的 ONNX 导出版本（model.onnx 和 tokenizer.json），然后运行：localmind docs embedder 文件夹。已添加的文档随后会生成向量；任何内容都不会离开这台电脑。</translation>
    </message>
    <message>
        <source>← Back to chat</source>
        <translation>← 返回对话</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Sources: no matching passages</source>
        <translation>来源：没有匹配的段落</translation>
    </message>
    <message>
        <source>Run: localmind models download multilingual-e5-small</source>
        <translation>请运行：localmind models download multilingual-e5-small</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Your documents: add files to answer from</source>
        <translation>你的文档：添加文件供回答参考</translation>
    </message>
</context>
<context>
    <name>ModelManagerPage</name>
    <message>
        <source>{name} is installed and verified. Documents now uses it to search by meaning.</source>
        <translation>{name} 已安装并通过校验。“文档”现在用它按含义搜索。</translation>
    </message>
    <message>
        <source>Ready: used by Documents to search by meaning</source>
        <translation>就绪：供“文档”按含义搜索</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>{used} / {budget} tokens ({documents} from documents)</source>
        <translation>{used} / {budget} token（其中 {documents} 来自文档）</translation>
    </message>
    <message>
        <source>How much of the model's context this chat uses: {documents} tokens are passages from your documents (the first, differently coloured part), {rest} the conversation.</source>
        <translation>此聊天占用的模型上下文：{documents} 个 token 是来自你的文档的段落（最前面颜色不同的部分），{rest} 个是对话本身。</translation>
    </message>
</context>
<context>
    <name>ModelDetails</name>
    <message>
        <source>{size} while Documents uses it</source>
        <translation>“文档”使用时占 {size}</translation>
    </message>
    <message>
        <source>measured when Documents first uses it</source>
        <translation>“文档”首次使用时测量</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>An embedding model, not a chat model. For search by meaning in your documents use Documents → “Download the embedding model”.</source>
        <translation>这是嵌入模型，不是聊天模型。要在文档中按含义搜索，请在“文档”中点击“下载嵌入模型”。</translation>
    </message>
</context>
<context>
    <name>engine</name>
    <message>
        <source>{path} cannot be opened: it is a link that leads back to itself (a symbolic link loop).</source>
        <translation>无法打开 {path}：它是一个指回自身的链接（符号链接循环）。</translation>
    </message>
    <message>
        <source>Add the file or folder the link was meant to point to.</source>
        <translation>请添加该链接本应指向的文件或文件夹。</translation>
    </message>
    <message>
        <source>{path}: the file's name is not valid text (UTF-8), so it was skipped.</source>
        <translation>{path}：文件名不是有效的文本（UTF-8），已跳过。</translation>
    </message>
    <message>
        <source>Rename the file, then add it again.</source>
        <translation>请重命名该文件，然后再添加一次。</translation>
    </message>
    <message>
        <source>The document index is in use by another program (another LocalMind?) and could not be written.</source>
        <translation>文档索引正被另一个程序（另一个 LocalMind？）使用，无法写入。</translation>
    </message>
    <message>
        <source>Wait for it to finish or close it, then try again.</source>
        <translation>请等它完成或将其关闭，然后重试。</translation>
    </message>
    <message>
        <source>The disk holding the document index ({path}) is full; nothing more could be indexed.</source>
        <translation>存放文档索引的磁盘（{path}）已满，无法再索引更多内容。</translation>
    </message>
    <message>
        <source>Free some space on that disk, then add the documents again: what was indexed before is kept.</source>
        <translation>请在该磁盘上腾出一些空间，然后再添加文档：之前已索引的内容会保留。</translation>
    </message>
    <message>
        <source>The document index at {path} cannot be written (the folder or file is read-only).</source>
        <translation>无法写入 {path} 处的文档索引（文件夹或文件是只读的）。</translation>
    </message>
    <message>
        <source>Make the data folder writable, then try again.</source>
        <translation>请让数据文件夹可写，然后重试。</translation>
    </message>
    <message>
        <source>The document index at {path} could not be written ({reason}).</source>
        <translation>无法写入 {path} 处的文档索引（{reason}）。</translation>
    </message>
    <message>
        <source>Try again; if it persists, check the disk for errors.</source>
        <translation>请重试；如果问题仍然存在，请检查磁盘是否有错误。</translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ModelManagerPage</name>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Verification stopped; nothing was changed.</source>
        <translation>校验已停止，未做任何更改。</translation>
    </message>
    <message>
        <source>Import stopped; nothing was installed.</source>
        <translation>导入已停止，未安装任何内容。</translation>
    </message>
    <message>
        <source>Cannot reach Hugging Face. Check the internet connection, then press Resume: what was downloaded is kept.</source>
        <translation>无法连接 Hugging Face。请检查网络连接，然后点“继续”：已下载的部分会保留。</translation>
    </message>
    <message>
        <source>About {n} tokens per second on this computer (an estimate).</source>
        <translation>在这台电脑上每秒约 {n} 个词元（估计值）。</translation>
    </message>
    <message>
        <source>Select a model in the list first.</source>
        <translation>请先在列表中选择一个模型。</translation>
    </message>
    <message>
        <source>Download this variant</source>
        <translation>下载此变体</translation>
    </message>
    <message>
        <source>An ONNX export without onnxruntime-genai settings: LocalMind downloads only the variant you pick and prepares it. Its architecture is checked first.</source>
        <translation>这是没有 onnxruntime-genai 设置的 ONNX 导出版：LocalMind 只下载你选择的变体并进行准备。会先检查其模型架构。</translation>
    </message>
    <message>
        <source>Type a model id first (owner/model).</source>
        <translation>请先输入模型 ID（所有者/模型）。</translation>
    </message>
    <message>
        <source> (recommended here)</source>
        <translation>（推荐用于本机）</translation>
    </message>
    <message>
        <source>(repo root)</source>
        <translation>（仓库根目录）</translation>
    </message>
    <message>
        <source>{name} is installed, verified and loading in the chat.</source>
        <translation>{name} 已安装并校验，正在对话中加载。</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>Preparing the model for this computer (once)…</source>
        <translation>正在为这台电脑准备模型（仅一次）…</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>? Could not check</source>
        <translation>? 无法检查</translation>
    </message>
    <message>
        <source>It could not be checked (the connection failed). Search again to retry.</source>
        <translation>无法检查（连接失败）。请重新搜索以重试。</translation>
    </message>
    <message>
        <source>Find models on Hugging Face</source>
        <translation>在 Hugging Face 上查找模型</translation>
    </message>
    <message>
        <source>Search, e.g. smollm2 or qwen3</source>
        <translation>搜索，例如 smollm2 或 qwen3</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>More results</source>
        <translation>更多结果</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <source>✓ Ready</source>
        <translation>✓ 可直接运行</translation>
    </message>
    <message>
        <source>✓ Prepared</source>
        <translation>✓ 准备后可运行</translation>
    </message>
    <message>
        <source>✗ Not supported</source>
        <translation>✗ 不支持</translation>
    </message>
    <message>
        <source>It has no ONNX model files (LocalMind runs ONNX models).</source>
        <translation>它没有 ONNX 模型文件（LocalMind 运行 ONNX 模型）。</translation>
    </message>
    <message>
        <source>Its ONNX files are not in a layout LocalMind knows.</source>
        <translation>它的 ONNX 文件不是 LocalMind 认识的布局。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Runs here?</source>
        <translation>能在本机运行？</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Downloads · likes</source>
        <translation>下载量 · 点赞</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新于</translation>
    </message>
    <message>
        <source>Type what to look for, e.g. smollm2.</source>
        <translation>请输入要查找的内容，例如 smollm2。</translation>
    </message>
    <message>
        <source>Loading more results…</source>
        <translation>正在加载更多结果…</translation>
    </message>
    <message>
        <source>Searching needs an internet connection: Hugging Face cannot be reached. Try again when online.</source>
        <translation>搜索需要联网：无法连接 Hugging Face。请在联网后重试。</translation>
    </message>
    <message>
        <source>No ONNX models match this search.</source>
        <translation>没有符合此搜索的 ONNX 模型。</translation>
    </message>
    <message>
        <source>(too much here)</source>
        <translation>（超出本机内存）</translation>
    </message>
    <message>
        <source>Select a result first.</source>
        <translation>请先选择一个结果。</translation>
    </message>
    <message>
        <source>Searching Hugging Face for “{text}”…</source>
        <translation>正在 Hugging Face 上搜索“{text}”…</translation>
    </message>
    <message>
        <source>{n} results; checking which run on this computer…</source>
        <translation>共 {n} 个结果；正在检查哪些能在这台电脑上运行…</translation>
    </message>
    <message>
        <source>{runs} of {n} results run on this computer; those are marked ✓.</source>
        <translation>{n} 个结果中有 {runs} 个能在这台电脑上运行，已用 ✓ 标出。</translation>
    </message>
    <message>
        <source>An onnxruntime-genai package: it runs as it is. LocalMind downloads {what}.</source>
        <translation>onnxruntime-genai 现成包：可直接运行。LocalMind 将下载 {what}。</translation>
    </message>
    <message>
        <source>An ONNX export of a supported architecture ({type}). LocalMind downloads only the {variant} variant ({quant}) and writes the settings it lacks. Other variants: {others}.</source>
        <translation>受支持架构（{type}）的 ONNX 导出版。LocalMind 只下载 {variant} 变体（{quant}），并补写它缺少的设置。其他变体：{others}。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>{name} is not an architecture LocalMind can run. Supported: {supported}.</source>
        <translation>LocalMind 无法运行 {name} 这种架构。支持的架构：{supported}。</translation>
    </message>
    <message>
        <source>Downloading {repo}: see Downloads below.</source>
        <translation>正在下载 {repo}：进度见下方“下载”。</translation>
    </message>
    <message>
        <source>Still checking {repo}; a moment…</source>
        <translation>仍在检查 {repo}，请稍候…</translation>
    </message>
    <message>
        <source>{repo} cannot be used: {why}</source>
        <translation>{repo} 无法使用：{why}</translation>
    </message>
</context>
<context>
    <name>ModelDetails</name>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>measured at the first load</source>
        <translation>首次加载时测量</translation>
    </message>
    <message>
        <source>settings generated by LocalMind</source>
        <translation>设置由 LocalMind 生成</translation>
    </message>
    <message>
        <source>{size} when loaded</source>
        <translation>加载后 {size}</translation>
    </message>
    <message>
        <source>Parameters: {n}</source>
        <translation>参数量：{n}</translation>
    </message>
    <message>
        <source>Quantization: {q}</source>
        <translation>量化：{q}</translation>
    </message>
    <message>
        <source>Context: {n} tokens</source>
        <translation>上下文：{n} 个词元</translation>
    </message>
    <message>
        <source>Files: {size}</source>
        <translation>文件：{size}</translation>
    </message>
    <message>
        <source>Memory: {memory}</source>
        <translation>内存：{memory}</translation>
    </message>
    <message>
        <source>From: {source}</source>
        <translation>来源：{source}</translation>
    </message>
</context>
</TS>

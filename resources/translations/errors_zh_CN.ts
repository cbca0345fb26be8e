<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>engine</name>
    <message>
        <source>(onnxruntime-genai said: {raw})</source>
        <translation>（onnxruntime-genai 的原话：{raw}）</translation>
    </message>
    <message>
        <source>Cannot read {path}: {reason}.</source>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check the path, or pick the folder again.</source>
        <translation>请检查路径，或重新选择文件夹。</translation>
    </message>
    <message>
        <source>Download the model again, or pick another folder.</source>
        <translation>请重新下载模型，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>Fix the schema, or leave out the parts LocalMind's constrained decoding does not support.</source>
        <translation>请修改 schema，或去掉 LocalMind 受约束解码不支持的部分。</translation>
    </message>
    <message>
        <source>Generation failed: {detail}</source>
        <translation>生成失败：{detail}</translation>
    </message>
    <message>
        <source>Leave out the variant for this model.</source>
        <translation>此模型请不要指定变体。</translation>
    </message>
    <message>
        <source>LocalMind needs a text-generation export with past (Optimum's text-generation-with-past).</source>
        <translation>LocalMind 需要带 KV 缓存的文本生成导出（Optimum 的 text-generation-with-past）。</translation>
    </message>
    <message>
        <source>Choose the folder of a model you downloaded, or get a model on the Models page (“Get more models…” in the model picker).</source>
        <translation>请选择已下载模型所在的文件夹，或在“模型”页获取模型（模型选择器中的“获取更多模型…”）。</translation>
    </message>
    <message>
        <source>Max new tokens must be at least 1 (got {value}).</source>
        <translation>最大新 token 数至少为 1（当前为 {value}）。</translation>
    </message>
    <message>
        <source>Min new tokens must be between 0 and max new tokens (got {value}).</source>
        <translation>最小新 token 数必须在 0 到最大新 token 数之间（当前为 {value}）。</translation>
    </message>
    <message>
        <source>Model folder not found: {folder}.</source>
        <translation>找不到模型文件夹：{folder}。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>Not enough memory to load this model. Close other programs, lower the context size in Settings, or pick a smaller model.</source>
        <translation>内存不足，无法加载此模型。请关闭其他程序、在“设置”中调小上下文大小，或选择更小的模型。</translation>
    </message>
    <message>
        <source>Open a model first.</source>
        <translation>请先打开一个模型。</translation>
    </message>
    <message>
        <source>Pick a model of a supported architecture.</source>
        <translation>请选择受支持架构的模型。</translation>
    </message>
    <message>
        <source>Pick another folder.</source>
        <translation>请选择其他文件夹。</translation>
    </message>
    <message>
        <source>Pick another variant or another model.</source>
        <translation>请选择其他变体或其他模型。</translation>
    </message>
    <message>
        <source>Pick the folder that contains {config}.</source>
        <translation>请选择包含 {config} 的文件夹。</translation>
    </message>
    <message>
        <source>Pick the model's top folder.</source>
        <translation>请选择模型的顶层文件夹。</translation>
    </message>
    <message>
        <source>Pick the one for your device (a cpu-int4 folder runs everywhere).</source>
        <translation>请选择适合你设备的那个（cpu-int4 文件夹在任何电脑上都能运行）。</translation>
    </message>
    <message>
        <source>Repetition penalty must be between 0.5 and 2 (got {value}).</source>
        <translation>重复惩罚必须在 0.5 到 2 之间（当前为 {value}）。</translation>
    </message>
    <message>
        <source>Shorten the message or the system prompt, or raise the context size in Settings.</source>
        <translation>请缩短消息或系统提示词，或在“设置”中调大上下文大小。</translation>
    </message>
    <message>
        <source>Temperature must be between 0 and 5 (got {value}).</source>
        <translation>温度必须在 0 到 5 之间（当前为 {value}）。</translation>
    </message>
    <message>
        <source>The JSON schema cannot be enforced: {detail}</source>
        <translation>无法强制执行该 JSON schema：{detail}</translation>
    </message>
    <message>
        <source>The download may be incomplete. Download the model again, or pick another folder.</source>
        <translation>下载可能不完整。请重新下载模型，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>The engine ended the turn without saying why.</source>
        <translation>引擎结束了本轮回答，但未说明原因。</translation>
    </message>
    <message>
        <source>The engine ended the job without saying why.</source>
        <translation>引擎结束了这项任务，但未说明原因。</translation>
    </message>
    <message>
        <source>The engine service stopped the job before it ran.</source>
        <translation>引擎服务在这项任务开始前就停止了它。</translation>
    </message>
    <message>
        <source>The model could not be loaded: {detail}</source>
        <translation>无法加载模型：{detail}</translation>
    </message>
    <message>
        <source>The model's chat template could not format this conversation: {reason}</source>
        <translation>模型的对话模板无法格式化此对话：{reason}</translation>
    </message>
    <message>
        <source>The model's weight file next to {onnx} is missing or damaged. Download the model again, or pick another folder.</source>
        <translation>{onnx} 旁边的模型权重文件缺失或已损坏。请重新下载模型，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>The tokenizer files in {folder} could not be loaded. Download the model again, or pick another folder.</source>
        <translation>无法加载 {folder} 中的分词器文件。请重新下载模型，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>The tokenizer in {folder} could not be loaded.</source>
        <translation>无法加载 {folder} 中的分词器。</translation>
    </message>
    <message>
        <source>This kind of model is not supported by the installed onnxruntime-genai. Try another model.</source>
        <translation>已安装的 onnxruntime-genai 不支持这类模型。请换用其他模型。</translation>
    </message>
    <message>
        <source>This message is too long for the model's context: it needs {count} tokens but the context holds {budget} (with room for a reply).</source>
        <translation>这条消息超出了模型的上下文长度：需要 {count} 个 token，而上下文（留出回答的空间后）只能容纳 {budget} 个。</translation>
    </message>
    <message>
        <source>Top-k must be 0 (off) or more (got {value}).</source>
        <translation>Top-k 必须为 0（关闭）或更大（当前为 {value}）。</translation>
    </message>
    <message>
        <source>Top-p must be above 0 and at most 1 (got {value}).</source>
        <translation>Top-p 必须大于 0 且不超过 1（当前为 {value}）。</translation>
    </message>
    <message>
        <source>Unknown device {device}.</source>
        <translation>未知设备 {device}。</translation>
    </message>
    <message>
        <source>Use one of: auto, {devices}.</source>
        <translation>请使用以下之一：auto、{devices}。</translation>
    </message>
    <message>
        <source>Variants in this folder: {names}.</source>
        <translation>此文件夹中的变体：{names}。</translation>
    </message>
    <message>
        <source>config.json does not say which architecture this model is (no model_type), so LocalMind cannot run it. Supported: {families}.</source>
        <translation>config.json 没有说明此模型的架构（缺少 model_type），LocalMind 无法运行它。支持的架构：{families}。</translation>
    </message>
    <message>
        <source>config.json in {folder} cannot be read: {reason}</source>
        <translation>无法读取 {folder} 中的 config.json：{reason}</translation>
    </message>
    <message>
        <source>config.json in {folder} is not a JSON object.</source>
        <translation>{folder} 中的 config.json 不是 JSON 对象。</translation>
    </message>
    <message>
        <source>config.json in {folder} lacks the model's shape (hidden_size, num_attention_heads).</source>
        <translation>{folder} 中的 config.json 缺少模型的形状信息（hidden_size、num_attention_heads）。</translation>
    </message>
    <message>
        <source>config.json is missing from {folder}.</source>
        <translation>{folder} 中缺少 config.json。</translation>
    </message>
    <message>
        <source>onnxruntime-genai could not load {folder}: {raw}.</source>
        <translation>onnxruntime-genai 无法加载 {folder}：{raw}。</translation>
    </message>
    <message>
        <source>the model's settings</source>
        <translation>模型设置</translation>
    </message>
    <message>
        <source>the tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>the tokenizer settings</source>
        <translation>分词器设置</translation>
    </message>
    <message>
        <source>token input</source>
        <translation>token 输入</translation>
    </message>
    <message>
        <source>logits output</source>
        <translation>logits 输出</translation>
    </message>
    <message>
        <source>tokenizer.json in {folder} is not a tokenizer (no "model" section).</source>
        <translation>{folder} 中的 tokenizer.json 不是分词器文件（没有 "model" 部分）。</translation>
    </message>
    <message>
        <source>tokenizer.json is missing from {folder}.</source>
        <translation>{folder} 中缺少 tokenizer.json。</translation>
    </message>
    <message>
        <source>{config} in {folder} does not name the decoder's ONNX file (model.decoder.filename).</source>
        <translation>{folder} 中的 {config} 没有指明解码器的 ONNX 文件（model.decoder.filename）。</translation>
    </message>
    <message>
        <source>{config} in {folder} has no "model" section.</source>
        <translation>{folder} 中的 {config} 没有 "model" 部分。</translation>
    </message>
    <message>
        <source>{config} in {folder} has no valid model.context_length.</source>
        <translation>{folder} 中的 {config} 没有有效的 model.context_length。</translation>
    </message>
    <message>
        <source>{file} has no KV-cache inputs and outputs (past_key_values.N.key/value, present.N.key/value), so LocalMind cannot run it.</source>
        <translation>{file} 没有 KV 缓存的输入和输出（past_key_values.N.key/value、present.N.key/value），LocalMind 无法运行它。</translation>
    </message>
    <message>
        <source>{file} has no {what} ({wanted}); its inputs are {inputs}. LocalMind runs text-generation exports with a KV cache (Optimum's text-generation-with-past).</source>
        <translation>{file} 没有{what}（{wanted}）；它的输入是 {inputs}。LocalMind 运行带 KV 缓存的文本生成导出（Optimum 的 text-generation-with-past）。</translation>
    </message>
    <message>
        <source>{file} in {folder} cannot be read: {reason}</source>
        <translation>无法读取 {folder} 中的 {file}：{reason}</translation>
    </message>
    <message>
        <source>{file} in {folder} is empty or truncated ({size} bytes).</source>
        <translation>{folder} 中的 {file} 为空或被截断（{size} 字节）。</translation>
    </message>
    <message>
        <source>{file} in {folder} is empty.</source>
        <translation>{folder} 中的 {file} 是空的。</translation>
    </message>
    <message>
        <source>{file} in {folder} is not UTF-8 text ({what}): {reason}.</source>
        <translation>{folder} 中的 {file}（{what}）不是 UTF-8 文本：{reason}。</translation>
    </message>
    <message>
        <source>{file} in {folder} is not a readable ONNX file: {reason}</source>
        <translation>{folder} 中的 {file} 不是可读取的 ONNX 文件：{reason}</translation>
    </message>
    <message>
        <source>{file} in {folder} is not valid JSON (line {line}, column {column}: {reason}).</source>
        <translation>{folder} 中的 {file} 不是有效的 JSON（第 {line} 行，第 {column} 列：{reason}）。</translation>
    </message>
    <message>
        <source>{file} is missing from {folder} ({config} says the model is in it).</source>
        <translation>{folder} 中缺少 {file}（{config} 指明模型在该文件中）。</translation>
    </message>
    <message>
        <source>{file} is missing from {folder} ({onnx} keeps its weights in it).</source>
        <translation>{folder} 中缺少 {file}（{onnx} 的权重保存在该文件中）。</translation>
    </message>
    <message>
        <source>{folder} does not say which token ends a reply (eos_token_id in generation_config.json or config.json).</source>
        <translation>{folder} 没有说明哪个 token 表示回答结束（generation_config.json 或 config.json 中的 eos_token_id）。</translation>
    </message>
    <message>
        <source>{folder} has no ONNX decoder graph (onnx/model*.onnx).</source>
        <translation>{folder} 中没有 ONNX 解码器图（onnx/model*.onnx）。</translation>
    </message>
    <message>
        <source>{folder} has no variants to choose from: only ONNX exports with several (onnx/model_q4.onnx, model_fp16.onnx, ...) do.</source>
        <translation>{folder} 没有可选的变体：只有包含多个变体的 ONNX 导出（onnx/model_q4.onnx、model_fp16.onnx 等）才有。</translation>
    </message>
    <message>
        <source>{folder} has no {config} itself, but these subfolders do: {names}.</source>
        <translation>{folder} 本身没有 {config}，但这些子文件夹有：{names}。</translation>
    </message>
    <message>
        <source>{folder} has no {variant} variant.</source>
        <translation>{folder} 中没有 {variant} 变体。</translation>
    </message>
    <message>
        <source>{folder} is a file, not a model folder.</source>
        <translation>{folder} 是一个文件，不是模型文件夹。</translation>
    </message>
    <message>
        <source>{folder} does not hold a model LocalMind can open: {config} is missing.</source>
        <translation>{folder} 中没有 LocalMind 能打开的模型：缺少 {config}。</translation>
    </message>
    <message>
        <source>{named} is not a text-generation (causal language) model, so LocalMind cannot chat with it. Supported: {families}.</source>
        <translation>{named} 不是文本生成（因果语言）模型，LocalMind 无法用它对话。支持的架构：{families}。</translation>
    </message>
    <message>
        <source>{named} is not an architecture LocalMind can run from an ONNX export. Supported: {families}.</source>
        <translation>LocalMind 无法从 ONNX 导出运行 {named} 架构。支持的架构：{families}。</translation>
    </message>
    <message>
        <source>{onnx} is damaged or incomplete: ONNX Runtime cannot read it. Download the model again, or pick another folder.</source>
        <translation>{onnx} 已损坏或不完整：ONNX Runtime 无法读取它。请重新下载模型，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>A model called {model} already exists.</source>
        <translation>已经有名为 {model} 的模型。</translation>
    </message>
    <message>
        <source>A model called {model} is already installed.</source>
        <translation>已经安装了名为 {model} 的模型。</translation>
    </message>
    <message>
        <source>Accept the model's licence on {page} with the account the token belongs to, or enter a new token in Settings.</source>
        <translation>请用该令牌所属的账号在 {page} 接受模型的许可协议，或在“设置”中输入新的令牌。</translation>
    </message>
    <message>
        <source>Accept the model's licence on {page}, then enter a Hugging Face access token in Settings.</source>
        <translation>请在 {page} 接受模型的许可协议，然后在“设置”中输入 Hugging Face 访问令牌。</translation>
    </message>
    <message>
        <source>Cannot reach Hugging Face ({endpoint}): searching for models needs an internet connection.</source>
        <translation>无法连接 Hugging Face（{endpoint}）：搜索模型需要网络连接。</translation>
    </message>
    <message>
        <source>Cannot reach {where}: {reason}.</source>
        <translation>无法连接 {where}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot write {path}: {reason}.</source>
        <translation>无法写入 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check the connection (and proxy settings), then search again.</source>
        <translation>请检查网络连接（以及代理设置），然后重新搜索。</translation>
    </message>
    <message>
        <source>Check the disk and the folder's permissions.</source>
        <translation>请检查磁盘以及该文件夹的权限。</translation>
    </message>
    <message>
        <source>Check the internet connection (and proxy settings), then try again.</source>
        <translation>请检查网络连接（以及代理设置），然后重试。</translation>
    </message>
    <message>
        <source>Check the internet connection and resume the download: the part already downloaded is kept.</source>
        <translation>请检查网络连接后继续下载：已下载的部分会保留。</translation>
    </message>
    <message>
        <source>Check the revision, or leave it out to get the latest.</source>
        <translation>请检查版本，或不指定版本以获取最新版。</translation>
    </message>
    <message>
        <source>Check the spelling (owner/model). For a private or gated model, enter a Hugging Face access token in Settings.</source>
        <translation>请检查拼写（所有者/模型）。如果是私有或需授权的模型，请在“设置”中输入 Hugging Face 访问令牌。</translation>
    </message>
    <message>
        <source>Download it again.</source>
        <translation>请重新下载。</translation>
    </message>
    <message>
        <source>Download the zip again, or import the model folder itself.</source>
        <translation>请重新下载该 zip，或直接导入模型文件夹。</translation>
    </message>
    <message>
        <source>Downloading {file} failed {count} times ({reason}).</source>
        <translation>下载 {file} 已失败 {count} 次（{reason}）。</translation>
    </message>
    <message>
        <source>Downloads are switched off: HF_HUB_OFFLINE is set.</source>
        <translation>下载已关闭：设置了 HF_HUB_OFFLINE。</translation>
    </message>
    <message>
        <source>File not found: {path}.</source>
        <translation>找不到文件：{path}。</translation>
    </message>
    <message>
        <source>Free some disk space and resume the download; what was downloaded so far is kept.</source>
        <translation>请释放一些磁盘空间后继续下载；已下载的部分会保留。</translation>
    </message>
    <message>
        <source>Free some space (or remove models you no longer use) and try again.</source>
        <translation>请释放一些空间（或删除不再使用的模型），然后重试。</translation>
    </message>
    <message>
        <source>Free some space, or import the folder by reference (it stays where it is).</source>
        <translation>请释放一些空间，或以引用方式导入该文件夹（文件保留在原处）。</translation>
    </message>
    <message>
        <source>Hugging Face answered HTTP {status} for {repo}.</source>
        <translation>Hugging Face 对 {repo} 返回了 HTTP {status}。</translation>
    </message>
    <message>
        <source>Hugging Face is having trouble (HTTP {status}).</source>
        <translation>Hugging Face 出现故障（HTTP {status}）。</translation>
    </message>
    <message>
        <source>Hugging Face is limiting requests right now (HTTP 429).</source>
        <translation>Hugging Face 目前正在限制请求（HTTP 429）。</translation>
    </message>
    <message>
        <source>Hugging Face refused the access token for {repo} (gated or private model).</source>
        <translation>Hugging Face 拒绝了用于 {repo} 的访问令牌（需授权或私有的模型）。</translation>
    </message>
    <message>
        <source>Leave out the variant (in the terminal: use --include FOLDER).</source>
        <translation>请不要指定变体（终端中：使用 --include FOLDER）。</translation>
    </message>
    <message>
        <source>LocalMind runs ONNX models made for onnxruntime-genai; pick one from the catalog.</source>
        <translation>LocalMind 运行为 onnxruntime-genai 制作的 ONNX 模型；请从模型目录中选择一个。</translation>
    </message>
    <message>
        <source>No installed model is called {model} (installed: {names}).</source>
        <translation>没有已安装的模型名为 {model}（已安装：{names}）。</translation>
    </message>
    <message>
        <source>Not enough disk space to import: {needed} GB needed, {free} GB free.</source>
        <translation>磁盘空间不足，无法导入：需要 {needed} GB，可用 {free} GB。</translation>
    </message>
    <message>
        <source>Not enough disk space: the download needs {needed} GB more, {free} GB is free on {where}.</source>
        <translation>磁盘空间不足：下载还需要 {needed} GB，{where} 上只有 {free} GB 可用。</translation>
    </message>
    <message>
        <source>Pick a folder elsewhere.</source>
        <translation>请选择其他位置的文件夹。</translation>
    </message>
    <message>
        <source>Pick a folder that holds a model.</source>
        <translation>请选择包含模型的文件夹。</translation>
    </message>
    <message>
        <source>Pick an embedding model from the catalog.</source>
        <translation>请从模型目录中选择一个嵌入模型。</translation>
    </message>
    <message>
        <source>Pick another embedding model.</source>
        <translation>请选择其他嵌入模型。</translation>
    </message>
    <message>
        <source>Pick another model or variant.</source>
        <translation>请选择其他模型或变体。</translation>
    </message>
    <message>
        <source>Pick another model.</source>
        <translation>请选择其他模型。</translation>
    </message>
    <message>
        <source>Pick another name, or remove that model first.</source>
        <translation>请换一个名称，或先删除那个模型。</translation>
    </message>
    <message>
        <source>Pick one (in the terminal: --include FOLDER).</source>
        <translation>请选择其中一个（终端中：--include FOLDER）。</translation>
    </message>
    <message>
        <source>Pick one of those (in the terminal: --variant NAME).</source>
        <translation>请从中选择一个（终端中：--variant NAME）。</translation>
    </message>
    <message>
        <source>Pick one of those.</source>
        <translation>请从中选择一个。</translation>
    </message>
    <message>
        <source>Reinstall LocalMind.</source>
        <translation>请重新安装 LocalMind。</translation>
    </message>
    <message>
        <source>Remove it first to download it again (`localmind models remove {model}`).</source>
        <translation>如需重新下载，请先删除它（`localmind models remove {model}`）。</translation>
    </message>
    <message>
        <source>Remove it first, or pick another name.</source>
        <translation>请先删除它，或换一个名称。</translation>
    </message>
    <message>
        <source>Run `localmind models list`.</source>
        <translation>请运行 `localmind models list`。</translation>
    </message>
    <message>
        <source>Start the download again later.</source>
        <translation>请稍后重新开始下载。</translation>
    </message>
    <message>
        <source>Start the download again to get the current files.</source>
        <translation>请重新开始下载以获取当前的文件。</translation>
    </message>
    <message>
        <source>Start the download again.</source>
        <translation>请重新开始下载。</translation>
    </message>
    <message>
        <source>Talking to {endpoint} failed: {reason}.</source>
        <translation>与 {endpoint} 通信失败：{reason}。</translation>
    </message>
    <message>
        <source>The disk is full: {file} could not be written to {folder}.</source>
        <translation>磁盘已满：无法把 {file} 写入 {folder}。</translation>
    </message>
    <message>
        <source>The file may be malicious; only import zips from sources you trust.</source>
        <translation>该文件可能是恶意的；请只导入来自可信来源的 zip。</translation>
    </message>
    <message>
        <source>The model catalog is missing ({path}).</source>
        <translation>缺少模型目录（{path}）。</translation>
    </message>
    <message>
        <source>The model catalog {path} is damaged: {reason}.</source>
        <translation>模型目录 {path} 已损坏：{reason}。</translation>
    </message>
    <message>
        <source>The model catalog {path} lists {ids} twice.</source>
        <translation>模型目录 {path} 重复列出了 {ids}。</translation>
    </message>
    <message>
        <source>The server answered HTTP {status} for {file}.</source>
        <translation>服务器对 {file} 返回了 HTTP {status}。</translation>
    </message>
    <message>
        <source>The server may not be Hugging Face or may be tampered with: check HF_ENDPOINT.</source>
        <translation>该服务器可能不是 Hugging Face，或已被篡改：请检查 HF_ENDPOINT。</translation>
    </message>
    <message>
        <source>The zip contains a link ({file}); it was not imported.</source>
        <translation>该 zip 中包含链接（{file}）；未导入。</translation>
    </message>
    <message>
        <source>The zip contains a path that leaves its folder ({file}); nothing was imported.</source>
        <translation>该 zip 中包含指向其文件夹之外的路径（{file}）；未导入任何内容。</translation>
    </message>
    <message>
        <source>The zip holds several models ({names}).</source>
        <translation>该 zip 中包含多个模型（{names}）。</translation>
    </message>
    <message>
        <source>This is an embedding model, not a chat model. For Documents' search by meaning use the catalog's embedding model: `{get_it}` (or Documents → Download the embedding model).</source>
        <translation>这是嵌入模型，不是对话模型。要在“文档”中按语义搜索，请使用模型目录中的嵌入模型：`{get_it}`（或“文档”→“下载嵌入模型”）。</translation>
    </message>
    <message>
        <source>Try again in a few minutes.</source>
        <translation>请几分钟后重试。</translation>
    </message>
    <message>
        <source>Try again later or on another network.</source>
        <translation>请稍后重试，或换一个网络。</translation>
    </message>
    <message>
        <source>Try again later or on another network; if it keeps happening, the file on the Hub may be broken.</source>
        <translation>请稍后重试，或换一个网络；如果反复发生，Hub 上的文件可能已损坏。</translation>
    </message>
    <message>
        <source>Try again later.</source>
        <translation>请稍后重试。</translation>
    </message>
    <message>
        <source>Try again later; if it persists, check the model id.</source>
        <translation>请稍后重试；如果问题持续，请检查模型 ID。</translation>
    </message>
    <message>
        <source>Try again; if it persists, report a bug.</source>
        <translation>请重试；如果问题持续，请报告错误。</translation>
    </message>
    <message>
        <source>Unpack it yourself and import the folder.</source>
        <translation>请自行解压，然后导入该文件夹。</translation>
    </message>
    <message>
        <source>Unset HF_HUB_OFFLINE to download models.</source>
        <translation>请取消设置 HF_HUB_OFFLINE 以下载模型。</translation>
    </message>
    <message>
        <source>Use lower-case letters, digits, '.', '-' and '_'.</source>
        <translation>请使用小写字母、数字、'.'、'-' 和 '_'。</translation>
    </message>
    <message>
        <source>Use the form owner/model, e.g. microsoft/Phi-3.5-mini-instruct-onnx.</source>
        <translation>请使用“所有者/模型”的格式，例如 microsoft/Phi-3.5-mini-instruct-onnx。</translation>
    </message>
    <message>
        <source>Wait a few minutes and try again.</source>
        <translation>请等几分钟后重试。</translation>
    </message>
    <message>
        <source>Wait for it to finish, or stop it there first.</source>
        <translation>请等待它完成，或先在那里停止它。</translation>
    </message>
    <message>
        <source>Zip one model folder at a time.</source>
        <translation>请每次只把一个模型文件夹打包成 zip。</translation>
    </message>
    <message>
        <source>cannot connect</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>connection problem ({reason})</source>
        <translation>连接问题（{reason}）</translation>
    </message>
    <message>
        <source>it is smaller than the zip says</source>
        <translation>它比 zip 中记录的小</translation>
    </message>
    <message>
        <source>network error</source>
        <translation>网络错误</translation>
    </message>
    <message>
        <source>no answer in time</source>
        <translation>未及时响应</translation>
    </message>
    <message>
        <source>no data for {seconds} s</source>
        <translation>{seconds} 秒内没有收到数据</translation>
    </message>
    <message>
        <source>the connection broke</source>
        <translation>连接中断</translation>
    </message>
    <message>
        <source>the connection ended early</source>
        <translation>连接提前结束</translation>
    </message>
    <message>
        <source>the download link expired (HTTP {status})</source>
        <translation>下载链接已过期（HTTP {status}）</translation>
    </message>
    <message>
        <source>the server answered HTTP {status}</source>
        <translation>服务器返回了 HTTP {status}</translation>
    </message>
    <message>
        <source>the server refused to resume</source>
        <translation>服务器拒绝继续传输</translation>
    </message>
    <message>
        <source>the server sent the wrong part of the file</source>
        <translation>服务器发送了文件的错误部分</translation>
    </message>
    <message>
        <source>{file} arrived damaged twice (its {algorithm} does not match what Hugging Face lists); nothing was installed.</source>
        <translation>{file} 两次下载都已损坏（其 {algorithm} 与 Hugging Face 列出的不符）；未安装任何内容。</translation>
    </message>
    <message>
        <source>{file} changed on the Hub while downloading ({now} bytes now, {listed} listed).</source>
        <translation>下载期间 {file} 在 Hub 上发生了变化（现在为 {now} 字节，列出的是 {listed} 字节）。</translation>
    </message>
    <message>
        <source>{file} holds no {config}: it is not an onnxruntime-genai model.</source>
        <translation>{file} 中没有 {config}：它不是 onnxruntime-genai 模型。</translation>
    </message>
    <message>
        <source>{file} in the zip is larger than it claims; nothing was imported.</source>
        <translation>zip 中的 {file} 比它声明的大；未导入任何内容。</translation>
    </message>
    <message>
        <source>{file} in {repo} is {size} bytes: too big to be a config.</source>
        <translation>{repo} 中的 {file} 有 {size} 字节：太大，不可能是配置文件。</translation>
    </message>
    <message>
        <source>{file} is no longer in {repo} at commit {commit}.</source>
        <translation>{repo} 在提交 {commit} 中已不再包含 {file}。</translation>
    </message>
    <message>
        <source>{file} is not a readable ONNX graph</source>
        <translation>{file} 不是可读取的 ONNX 图</translation>
    </message>
    <message>
        <source>{file} is not a readable zip file ({reason}).</source>
        <translation>{file} 不是可读取的 zip 文件（{reason}）。</translation>
    </message>
    <message>
        <source>{file} of {repo} arrived damaged (it does not match what Hugging Face lists).</source>
        <translation>{repo} 的 {file} 下载后已损坏（与 Hugging Face 列出的不符）。</translation>
    </message>
    <message>
        <source>{file} of {repo} is not a JSON object.</source>
        <translation>{repo} 的 {file} 不是 JSON 对象。</translation>
    </message>
    <message>
        <source>{file} of {repo} is not valid JSON.</source>
        <translation>{repo} 的 {file} 不是有效的 JSON。</translation>
    </message>
    <message>
        <source>{file} was not found on the server (HTTP 404).</source>
        <translation>服务器上找不到 {file}（HTTP 404）。</translation>
    </message>
    <message>
        <source>{folder} is already inside LocalMind's models folder.</source>
        <translation>{folder} 已经在 LocalMind 的模型文件夹中。</translation>
    </message>
    <message>
        <source>{model} could not be installed.</source>
        <translation>无法安装 {model}。</translation>
    </message>
    <message>
        <source>{model} is already installed.</source>
        <translation>{model} 已经安装。</translation>
    </message>
    <message>
        <source>{model} is not a model id.</source>
        <translation>{model} 不是模型 ID。</translation>
    </message>
    <message>
        <source>{model} is not a valid model id.</source>
        <translation>{model} 不是有效的模型 ID。</translation>
    </message>
    <message>
        <source>{reason} while asking for {file}</source>
        <translation>请求 {file} 时{reason}</translation>
    </message>
    <message>
        <source>{repo} cannot be used: {reason}</source>
        <translation>无法使用 {repo}：{reason}</translation>
    </message>
    <message>
        <source>{repo} downloaded fine but is not a usable model: {reason}</source>
        <translation>{repo} 已下载完成，但不是可用的模型：{reason}</translation>
    </message>
    <message>
        <source>{repo} downloaded fine but is not a usable embedding model: {reason}</source>
        <translation>{repo} 已下载完成，但不是可用的嵌入模型：{reason}</translation>
    </message>
    <message>
        <source>{repo} downloaded fine, but LocalMind could not prepare it to run: {reason}.</source>
        <translation>{repo} 已下载完成，但 LocalMind 无法将其准备为可运行状态：{reason}。</translation>
    </message>
    <message>
        <source>{repo} has no ONNX model file.</source>
        <translation>{repo} 中没有 ONNX 模型文件。</translation>
    </message>
    <message>
        <source>{repo} has no branch, tag or commit named {revision}.</source>
        <translation>{repo} 中没有名为 {revision} 的分支、标签或提交。</translation>
    </message>
    <message>
        <source>{repo} has no model folder {folder}. Folders with a model: {folders}.</source>
        <translation>{repo} 中没有模型文件夹 {folder}。包含模型的文件夹：{folders}。</translation>
    </message>
    <message>
        <source>{repo} has no onnxruntime-genai model: no folder in it holds a {config}.</source>
        <translation>{repo} 中没有 onnxruntime-genai 模型：没有任何文件夹包含 {config}。</translation>
    </message>
    <message>
        <source>{repo} has no variant {variant}. Variants: {names}.</source>
        <translation>{repo} 中没有 {variant} 变体。可用变体：{names}。</translation>
    </message>
    <message>
        <source>{repo} has no {file} at its top, so it cannot be used as an embedding model.</source>
        <translation>{repo} 的顶层没有 {file}，因此不能用作嵌入模型。</translation>
    </message>
    <message>
        <source>{repo} has no {file}.</source>
        <translation>{repo} 中没有 {file}。</translation>
    </message>
    <message>
        <source>{repo} holds several model variants: {folders}.</source>
        <translation>{repo} 包含多个模型变体：{folders}。</translation>
    </message>
    <message>
        <source>{repo} is an onnxruntime-genai package: it has model folders, not variants.</source>
        <translation>{repo} 是 onnxruntime-genai 模型包：它包含的是模型文件夹，而不是变体。</translation>
    </message>
    <message>
        <source>{repo} is gated or private: Hugging Face requires you to sign in to download it.</source>
        <translation>{repo} 需要授权或是私有的：Hugging Face 要求登录后才能下载。</translation>
    </message>
    <message>
        <source>{repo} is not a Hugging Face model id.</source>
        <translation>{repo} 不是 Hugging Face 模型 ID。</translation>
    </message>
    <message>
        <source>{repo} lists a file with an unsafe path ({path}); nothing was downloaded.</source>
        <translation>{repo} 列出了一个路径不安全的文件（{path}）；未下载任何内容。</translation>
    </message>
    <message>
        <source>{repo} was not found on Hugging Face (or it is private).</source>
        <translation>在 Hugging Face 上找不到 {repo}（或它是私有的）。</translation>
    </message>
    <message>
        <source>{repo}/{folder} downloaded fine but is not a usable model: {reason}</source>
        <translation>{repo}/{folder} 已下载完成，但不是可用的模型：{reason}</translation>
    </message>
    <message>
        <source>{repo}/{folder} has no {config}.</source>
        <translation>{repo}/{folder} 中没有 {config}。</translation>
    </message>
    <message>
        <source>{what} is already being downloaded by another LocalMind window or command.</source>
        <translation>另一个 LocalMind 窗口或命令正在下载 {what}。</translation>
    </message>
    <message>
        <source>{zip} is damaged or not what it claims: {file} does not match its recorded size and checksum ({problem}). Nothing was imported.</source>
        <translation>{zip} 已损坏或与其声明不符：{file} 与记录的大小和校验和不一致（{problem}）。未导入任何内容。</translation>
    </message>
    <message>
        <source>Unexpected error: {kind}: {detail}</source>
        <translation>意外错误：{kind}：{detail}</translation>
    </message>
    <message>
        <source>Expecting value</source>
        <translation>此处应为一个值</translation>
    </message>
    <message>
        <source>Expecting property name enclosed in double quotes</source>
        <translation>此处应为带双引号的属性名</translation>
    </message>
    <message>
        <source>Expecting ':' delimiter</source>
        <translation>此处应为 ':' 分隔符</translation>
    </message>
    <message>
        <source>Expecting ',' delimiter</source>
        <translation>此处应为 ',' 分隔符</translation>
    </message>
    <message>
        <source>Unterminated string starting at</source>
        <translation>字符串没有结束</translation>
    </message>
    <message>
        <source>Extra data</source>
        <translation>有多余的数据</translation>
    </message>
    <message>
        <source>Invalid control character at</source>
        <translation>有无效的控制字符</translation>
    </message>
    <message>
        <source>{file} cannot be imported: {where} {problem}.</source>
        <translation>无法导入 {file}：{where} {problem}。</translation>
    </message>
    <message>
        <source>Use a file made by LocalMind's JSON export (localmind export --format json), unchanged.</source>
        <translation>请使用由 LocalMind 的 JSON 导出生成且未经修改的文件（localmind export --format json）。</translation>
    </message>
    <message>
        <source>is missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>should be {kinds}, not {found}</source>
        <translation>应为{kinds}，而不是{found}</translation>
    </message>
    <message>
        <source>is not a time between 1970 and 9999 in seconds since 1970 ({value})</source>
        <translation>不是 1970 年到 9999 年之间、以 1970 年起的秒数表示的时间（{value}）</translation>
    </message>
    <message>
        <source>{file} cannot be imported: its text is not UTF-8 ({reason}).</source>
        <translation>无法导入 {file}：其文本不是 UTF-8（{reason}）。</translation>
    </message>
    <message>
        <source>{file} cannot be imported: it is nested too deeply to be a LocalMind export.</source>
        <translation>无法导入 {file}：嵌套层级太深，不可能是 LocalMind 的导出文件。</translation>
    </message>
    <message>
        <source>{file} is not JSON ({reason}).</source>
        <translation>{file} 不是 JSON（{reason}）。</translation>
    </message>
    <message>
        <source>Pick a file made by LocalMind's JSON export; Markdown exports cannot be imported.</source>
        <translation>请选择由 LocalMind 的 JSON 导出生成的文件；Markdown 导出无法导入。</translation>
    </message>
    <message>
        <source>{file} is not a LocalMind conversation export (no "format": "{format}" header).</source>
        <translation>{file} 不是 LocalMind 的对话导出文件（没有 "format": "{format}" 标头）。</translation>
    </message>
    <message>
        <source>Pick a file made by LocalMind's JSON export.</source>
        <translation>请选择由 LocalMind 的 JSON 导出生成的文件。</translation>
    </message>
    <message>
        <source>is {value}, expected a whole number</source>
        <translation>为 {value}，应为整数</translation>
    </message>
    <message>
        <source>{file} was made by a newer LocalMind (format version {version}; this one reads {known}).</source>
        <translation>{file} 由更新版本的 LocalMind 生成（格式版本 {version}；此版本只能读取 {known}）。</translation>
    </message>
    <message>
        <source>Update LocalMind, then import it again.</source>
        <translation>请更新 LocalMind，然后重新导入。</translation>
    </message>
    <message>
        <source>should be an object, not {found}</source>
        <translation>应为对象，而不是{found}</translation>
    </message>
    <message>
        <source>is {value}, expected one of {allowed}</source>
        <translation>为 {value}，应为以下之一：{allowed}</translation>
    </message>
    <message>
        <source>Check the file name.</source>
        <translation>请检查文件名。</translation>
    </message>
    <message>
        <source>Could not save settings to {path}: {reason}.</source>
        <translation>无法把设置保存到 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that the data folder is writable; your changes apply until LocalMind closes.</source>
        <translation>请检查数据文件夹是否可写；你的更改在 LocalMind 关闭前仍然有效。</translation>
    </message>
    <message>
        <source>The backup {backup} is damaged ({check}).</source>
        <translation>备份 {backup} 已损坏（{check}）。</translation>
    </message>
    <message>
        <source>Choose another backup.</source>
        <translation>请选择其他备份。</translation>
    </message>
    <message>
        <source>The disk holding {folder} is full, so LocalMind could not save to {file}.</source>
        <translation>{folder} 所在的磁盘已满，LocalMind 无法保存到 {file}。</translation>
    </message>
    <message>
        <source>What was saved before is safe. Free some space on that disk, then try again.</source>
        <translation>之前保存的内容是安全的。请在该磁盘上释放一些空间，然后重试。</translation>
    </message>
    <message>
        <source>The conversation database {path} cannot be written (the disk or the file is read-only).</source>
        <translation>无法写入对话数据库 {path}（磁盘或文件为只读）。</translation>
    </message>
    <message>
        <source>Your conversations are safe and can be read and exported. Check the file's permissions, or that the disk is mounted writable.</source>
        <translation>你的对话是安全的，可以查看和导出。请检查文件的权限，或确认磁盘以可写方式挂载。</translation>
    </message>
    <message>
        <source>Another program is using the conversation database {path} right now.</source>
        <translation>另一个程序正在使用对话数据库 {path}。</translation>
    </message>
    <message>
        <source>Nothing was lost. Wait until it finishes (for example a 'localmind import' in a terminal), then try again.</source>
        <translation>没有丢失任何内容。请等它完成（例如终端中的 'localmind import'），然后重试。</translation>
    </message>
    <message>
        <source>Part of the conversation database {path} is damaged ({reason}).</source>
        <translation>对话数据库 {path} 的一部分已损坏（{reason}）。</translation>
    </message>
    <message>
        <source>Do not delete it. Start LocalMind's window to recover everything readable into a new database, or save what can be read with: localmind export --all -o chats.json</source>
        <translation>请不要删除它。启动 LocalMind 窗口，把所有可读取的内容恢复到新数据库中，或用以下命令保存可读取的内容：localmind export --all -o chats.json</translation>
    </message>
    <message>
        <source>The conversation database {path} could not be used: {reason}.</source>
        <translation>无法使用对话数据库 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot open the conversation database {path}: {reason}.</source>
        <translation>无法打开对话数据库 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that the data folder exists and is writable (or pick another with --data-dir).</source>
        <translation>请检查数据文件夹是否存在且可写（或用 --data-dir 选择其他文件夹）。</translation>
    </message>
    <message>
        <source>{path} is not a LocalMind conversation database or is damaged ({reason}).</source>
        <translation>{path} 不是 LocalMind 的对话数据库，或已损坏（{reason}）。</translation>
    </message>
    <message>
        <source>Do not delete it: start LocalMind's window to recover what can be read from it.</source>
        <translation>请不要删除它：启动 LocalMind 窗口，以恢复其中可读取的内容。</translation>
    </message>
    <message>
        <source>Do not delete it: LocalMind can recover everything readable into a new database.</source>
        <translation>请不要删除它：LocalMind 可以把所有可读取的内容恢复到新数据库中。</translation>
    </message>
    <message>
        <source>{path} was written by a newer LocalMind (schema {version}; this one knows {known}).</source>
        <translation>{path} 由更新版本的 LocalMind 写入（结构版本 {version}；此版本只认识 {known}）。</translation>
    </message>
    <message>
        <source>Update LocalMind to open these conversations.</source>
        <translation>请更新 LocalMind 以打开这些对话。</translation>
    </message>
    <message>
        <source>The conversation database {path} is open read-only.</source>
        <translation>对话数据库 {path} 以只读方式打开。</translation>
    </message>
    <message>
        <source>You can read, search and export; nothing new can be saved until it can be written again.</source>
        <translation>你可以查看、搜索和导出；在它恢复可写之前，无法保存任何新内容。</translation>
    </message>
    <message>
        <source>This model has no chat template; LocalMind uses a generic one (ChatML), so answers may be poor.</source>
        <translation>此模型没有对话模板；LocalMind 使用通用模板（ChatML），回答质量可能较差。</translation>
    </message>
    <message>
        <source>The model's chat template failed ({reason}); LocalMind uses a generic one (ChatML).</source>
        <translation>模型的对话模板出错（{reason}）；LocalMind 改用通用模板（ChatML）。</translation>
    </message>
    <message>
        <source>{device} failed on the first answer ({reason}). LocalMind answered on the CPU and will use the CPU for this model from now on.</source>
        <translation>{device} 在第一次回答时出错（{reason}）。LocalMind 已改用 CPU 回答，以后此模型都将使用 CPU。</translation>
    </message>
    <message>
        <source>{url} is not a server address.</source>
        <translation>{url} 不是服务器地址。</translation>
    </message>
    <message>
        <source>Use the form http://HOST:PORT (for example http://gpu-box:8000).</source>
        <translation>请使用 http://主机:端口 的格式（例如 http://gpu-box:8000）。</translation>
    </message>
    <message>
        <source>Check that it is running and that the address is right, then try again.</source>
        <translation>请确认服务器正在运行、地址正确，然后重试。</translation>
    </message>
    <message>
        <source>The server at {host} did not answer in time.</source>
        <translation>{host} 上的服务器没有及时响应。</translation>
    </message>
    <message>
        <source>The server at {host} refused the connection or could not be found.</source>
        <translation>{host} 上的服务器拒绝了连接，或找不到该服务器。</translation>
    </message>
    <message>
        <source>The server at {host} could not be reached ({kind}).</source>
        <translation>无法连接 {host} 上的服务器（{kind}）。</translation>
    </message>
    <message>
        <source>Check the API key in Settings → Remote models.</source>
        <translation>请在“设置”→“远程模型”中检查 API 密钥。</translation>
    </message>
    <message>
        <source>Check the model name and the address (it should end in /v1 or nothing).</source>
        <translation>请检查模型名称和地址（地址应以 /v1 结尾，或不带路径）。</translation>
    </message>
    <message>
        <source>The server is busy; try again in a moment.</source>
        <translation>服务器正忙；请稍后重试。</translation>
    </message>
    <message>
        <source>The server reported a problem; try again, or check the server's log.</source>
        <translation>服务器报告了问题；请重试，或查看服务器日志。</translation>
    </message>
    <message>
        <source>The server at {host} answered {status}: {detail}</source>
        <translation>{host} 上的服务器返回了 {status}：{detail}</translation>
    </message>
    <message>
        <source>The server at {host} did not answer like an OpenAI-compatible server.</source>
        <translation>{host} 上的服务器的响应不像 OpenAI 兼容服务器。</translation>
    </message>
    <message>
        <source>Check the address: it should be the server's API root (for example http://HOST:8000/v1).</source>
        <translation>请检查地址：应为服务器的 API 根地址（例如 http://主机:8000/v1）。</translation>
    </message>
    <message>
        <source>The server at {host} has no model called {model} (it offers: {offered}).</source>
        <translation>{host} 上的服务器没有名为 {model} 的模型（它提供：{offered}）。</translation>
    </message>
    <message>
        <source>This model runs on {host}: your messages leave this computer.</source>
        <translation>此模型运行在 {host} 上：你的消息会离开这台电脑。</translation>
    </message>
    <message>
        <source>Pick a model first.</source>
        <translation>请先选择一个模型。</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>{first} or {second}</source>
        <translation>{first}或{second}</translation>
    </message>
    <message>
        <source>{file} arrived damaged; downloading it again</source>
        <translation>{file} 下载后已损坏；正在重新下载</translation>
    </message>
    <message>
        <source>{reason}; retrying in {seconds} s</source>
        <translation>{reason}；{seconds} 秒后重试</translation>
    </message>
    <message>
        <source>the server cannot resume {file}; restarting it</source>
        <translation>服务器无法继续传输 {file}；正在从头下载</translation>
    </message>
    <message>
        <source>{what} ({percent}%)</source>
        <translation>{what}（{percent}%）</translation>
    </message>
    <message>
        <source>Preparing the model for this computer</source>
        <translation>正在为这台电脑准备模型</translation>
    </message>
    <message>
        <source>Tuning the model for this computer</source>
        <translation>正在为这台电脑优化模型</translation>
    </message>
    <message>
        <source>{path} is not readable ({reason}).</source>
        <translation>无法读取 {path}（{reason}）。</translation>
    </message>
    <message>
        <source>Install the embedding model from the model manager again.</source>
        <translation>请在“模型”页中重新安装嵌入模型。</translation>
    </message>
    <message>
        <source>{path} asks for {pooling} pooling; LocalMind knows {known}.</source>
        <translation>{path} 要求使用 {pooling} 池化；LocalMind 只支持 {known}。</translation>
    </message>
    <message>
        <source>the embedding model in {folder} does not run ({reason}).</source>
        <translation>{folder} 中的嵌入模型无法运行（{reason}）。</translation>
    </message>
    <message>
        <source>the embedding model in {folder} gives no usable vectors.</source>
        <translation>{folder} 中的嵌入模型没有给出可用的向量。</translation>
    </message>
    <message>
        <source>{folder} is not an embedding model folder (it needs an .onnx file and tokenizer.json).</source>
        <translation>{folder} 不是嵌入模型文件夹（需要一个 .onnx 文件和 tokenizer.json）。</translation>
    </message>
    <message>
        <source>The embedding model {file} could not be loaded ({reason}).</source>
        <translation>无法加载嵌入模型 {file}（{reason}）。</translation>
    </message>
    <message>
        <source>{model}: the model's output has shape {shape}, not [texts, tokens, width].</source>
        <translation>{model}：模型输出的形状是 {shape}，而不是 [文本数, token 数, 宽度]。</translation>
    </message>
    <message>
        <source>{path} is not a file LocalMind can read (a named pipe, a device or a socket).</source>
        <translation>{path} 不是 LocalMind 能读取的文件（是命名管道、设备或套接字）。</translation>
    </message>
    <message>
        <source>Add documents saved as files: PDF, Word, Markdown, HTML or text.</source>
        <translation>请添加保存为文件的文档：PDF、Word、Markdown、HTML 或文本。</translation>
    </message>
    <message>
        <source>Not found: {path}.</source>
        <translation>找不到：{path}。</translation>
    </message>
    <message>
        <source>Check the path and try again.</source>
        <translation>请检查路径后重试。</translation>
    </message>
    <message>
        <source>The document index at {path} could not be opened ({reason}).</source>
        <translation>无法打开位于 {path} 的文档索引（{reason}）。</translation>
    </message>
    <message>
        <source>Close other copies of LocalMind; if it persists, delete that file and add your documents again.</source>
        <translation>请关闭其他正在运行的 LocalMind；如果问题持续，请删除该文件，然后重新添加你的文档。</translation>
    </message>
    <message>
        <source>There is no conversation {id}; it may have been deleted.</source>
        <translation>没有对话 {id}；它可能已被删除。</translation>
    </message>
    <message>
        <source>There is no message {id}; it may have been deleted.</source>
        <translation>没有消息 {id}；它可能已被删除。</translation>
    </message>
    <message>
        <source>Other devices may use the API only with a key.</source>
        <translation>其他设备只能凭密钥使用此 API。</translation>
    </message>
    <message>
        <source>Set an API key, or turn off network access.</source>
        <translation>请设置 API 密钥，或关闭网络访问。</translation>
    </message>
    <message>
        <source>The API server could not listen on port {port}.</source>
        <translation>API 服务器无法监听端口 {port}。</translation>
    </message>
    <message>
        <source>Another program may be using it: pick another port in Settings.</source>
        <translation>可能有其他程序正在使用该端口：请在“设置”中换一个端口。</translation>
    </message>
    <message>
        <source>failed verification ({files})</source>
        <translation>校验未通过（{files}）</translation>
    </message>
    <message>
        <source>its folder {folder} is gone</source>
        <translation>它的文件夹 {folder} 已不存在</translation>
    </message>
    <message>
        <source>{file} is missing</source>
        <translation>缺少 {file}</translation>
    </message>
    <message>
        <source>{file} has the wrong size</source>
        <translation>{file} 的大小不对</translation>
    </message>
    <message>
        <source>failed when answering before: {reason}</source>
        <translation>之前回答时出错：{reason}</translation>
    </message>
    <message>
        <source>failed when answering: {reason}</source>
        <translation>回答时出错：{reason}</translation>
    </message>
    <message>
        <source>Cuda interface not available: {library} is not installed (this is not a CUDA build of onnxruntime-genai)</source>
        <translation>CUDA 接口不可用：未安装 {library}（这不是 CUDA 版本的 onnxruntime-genai）</translation>
    </message>
</context>
</TS>

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AnswerAnnouncer</name>
    <message>
        <source>Answer finished: {text}</source>
        <translation>回答完毕：{text}</translation>
    </message>
    <message>
        <source>Answer finished.</source>
        <translation>回答完毕。</translation>
    </message>
</context>
<context>
    <name>AppSettingsTab</name>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>推理引擎</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Run models on</source>
        <translation>运行设备</translation>
    </message>
    <message>
        <source>Context size (tokens)</source>
        <translation>上下文大小（token）</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Automatic (best available)</source>
        <translation>自动（选择最佳可用设备）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>NVIDIA GPU (CUDA)</source>
        <translation>NVIDIA GPU（CUDA）</translation>
    </message>
    <message>
        <source>GPU via DirectML (Windows)</source>
        <translation>通过 DirectML 使用 GPU（Windows）</translation>
    </message>
    <message>
        <source>Apple Core ML (macOS)</source>
        <translation>Apple Core ML（macOS）</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Prepare replies while I type</source>
        <translation>在我输入时预先准备回答</translation>
    </message>
    <message>
        <source>The model reads the chat and your message while you type, so the answer starts as soon as you press Enter. Off while the computer runs on battery.</source>
        <translation>在你输入时，模型会提前读取对话和你的消息，按下回车后回答立即开始。电脑使用电池供电时此功能关闭。</translation>
    </message>
    <message>
        <source>The language changes at once; a few parts follow after a restart.</source>
        <translation>语言会立即切换；少数部分需重启后更新。</translation>
    </message>
    <message>
        <source>How much of the chat the model keeps in mind. More remembers more of a long chat but needs more memory.</source>
        <translation>模型能记住多少对话内容。越大越能记住长对话，但需要更多内存。</translation>
    </message>
    <message>
        <source>Changing the device, context size or threads reloads the model.</source>
        <translation>更改运行设备、上下文大小或线程数会重新加载模型。</translation>
    </message>
    <message>
        <source>The memory a context takes depends on the model: load one to see it here.</source>
        <translation>上下文占用的内存取决于模型：加载一个模型后，这里会显示具体数值。</translation>
    </message>
    <message>
        <source>{model}: {tokens} tokens of context take {size} of memory ({per_token} per token), reserved as soon as the model is loaded, on top of the model itself.</source>
        <translation>{model}：{tokens} 个 token 的上下文占用 {size} 内存（每个 token {per_token}），模型加载后立即预留，另加模型本身占用的内存。</translation>
    </message>
    <message>
        <source>This model reads at most {tokens} tokens.</source>
        <translation>此模型最多读取 {tokens} 个 token。</translation>
    </message>
    <message>
        <source>{count} bytes</source>
        <translation>{count} 字节</translation>
    </message>
</context>
<context>
    <name>ChatSettingsTab</name>
    <message>
        <source>Saved as the defaults for new chats when you press OK.</source>
        <translation>按“确定”后，将保存为新对话的默认值。</translation>
    </message>
    <message>
        <source>These settings apply to this chat only.</source>
        <translation>这些设置仅对当前对话生效。</translation>
    </message>
    <message>
        <source>These settings apply to the new chat you are about to start.</source>
        <translation>这些设置将用于你即将开始的新对话。</translation>
    </message>
    <message>
        <source>Instructions for the assistant</source>
        <translation>给助手的指示</translation>
    </message>
    <message>
        <source>For example: You are a concise assistant. Answer in plain English.</source>
        <translation>例如：你是一个简洁的助手，请用通俗易懂的中文回答。</translation>
    </message>
    <message>
        <source>The system prompt: read before every message.</source>
        <translation>系统提示词：在每条消息之前读取。</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>风格</translation>
    </message>
    <message>
        <source>How the assistant words its answers. Balanced suits most chats.</source>
        <translation>助手回答的措辞风格。“均衡”适合大多数对话。</translation>
    </message>
    <message>
        <source>Longest answer (tokens)</source>
        <translation>最长回答（token）</translation>
    </message>
    <message>
        <source>A token is a word or a part of a word. The longest answer the model may write.</source>
        <translation>token 是一个词或词的一部分。这是模型一次最多能写的长度。</translation>
    </message>
    <message>
        <source>Longest answer</source>
        <translation>最长回答</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>The numbers behind the styles, for those who know them. The styles above set them for you.</source>
        <translation>风格背后的具体数值，供了解它们的人调整。上面的风格会自动为你设置。</translation>
    </message>
    <message>
        <source>Reset to defaults</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <source>Use for new chats</source>
        <translation>用于新对话</translation>
    </message>
    <message>
        <source>Make these values and the system prompt the defaults for new chats</source>
        <translation>将这些数值和系统提示词设为新对话的默认值</translation>
    </message>
    <message>
        <source>Precise</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>均衡</translation>
    </message>
    <message>
        <source>Creative</source>
        <translation>创意</translation>
    </message>
    <message>
        <source>Focused, repeatable answers</source>
        <translation>专注、可重复的回答</translation>
    </message>
    <message>
        <source>A good default for most chats</source>
        <translation>适合大多数对话的默认选择</translation>
    </message>
    <message>
        <source>More varied and surprising answers</source>
        <translation>更多样、更出人意料的回答</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Higher is more random; 0 always picks the likeliest word.</source>
        <translation>数值越高越随机；为 0 时总是选择可能性最大的词。</translation>
    </message>
    <message>
        <source>Only consider the likeliest words that together make up this share.</source>
        <translation>只考虑累计概率达到该比例的最可能的词。</translation>
    </message>
    <message>
        <source>Only consider this many likeliest words (0: no limit).</source>
        <translation>只考虑这么多个最可能的词（0 表示不限制）。</translation>
    </message>
    <message>
        <source>Above 1 discourages repeating the same words.</source>
        <translation>大于 1 时会抑制重复相同的词语。</translation>
    </message>
</context>
<context>
    <name>DocumentsFeature</name>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
</TS>

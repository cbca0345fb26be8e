<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>BackupRestore</name>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="288" />
        <source>Restore from backup</source>
        <translation>从备份恢复</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="291" />
        <source>Choose a backup. Your conversations are replaced by those in it; a copy of them as they are now is kept first, so you can undo this by restoring that copy.</source>
        <translation>请选择一个备份。当前的对话将被备份中的对话替换；替换前会先保存一份当前对话的副本，恢复该副本即可撤销此操作。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="303" />
        <source>daily</source>
        <translation>每日</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="304" />
        <source>before an update</source>
        <translation>更新前</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="305" />
        <source>before a restore</source>
        <translation>恢复前</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="308" />
        <source>{count} chats</source>
        <translation>{count} 个对话</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="310" />
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="318" />
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="336" />
        <source>The backup was restored.</source>
        <translation>备份已恢复。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="337" />
        <source>The backup could not be restored.</source>
        <translation>无法恢复该备份。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="341" />
        <source>Your conversations as they were just before are kept in {path}.</source>
        <translation>恢复前的对话已保存在 {path}。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="351" />
        <source>Stop the answer first.</source>
        <translation>请先停止正在生成的回答。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="352" />
        <source>A backup can be restored while no answer is being written.</source>
        <translation>只有在没有回答正在生成时才能恢复备份。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="357" />
        <source>No backups yet.</source>
        <translation>还没有备份。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="375" />
        <source>There is no backup yet. LocalMind makes one each day you use it, and before an update.</source>
        <translation>还没有备份。LocalMind 会在你每天使用时以及每次更新前自动备份。</translation>
    </message>
<message><source>Restore from backup…</source><translation>从备份恢复…</translation></message></context>
<context>
    <name>ImportSummary</name>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="384" />
        <source>Imported {count} chat(s).</source>
        <translation>已导入 {count} 个对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="387" />
        <source>Added new messages to {count} chat(s) already here.</source>
        <translation>已为 {count} 个已有对话补上新消息。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="390" />
        <source>Imported {count} chat(s) as copies (they differ from the ones already here).</source>
        <translation>已将 {count} 个对话作为副本导入（它们与已有的对话不同）。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="395" />
        <source>Skipped {count} chat(s) already here.</source>
        <translation>已跳过 {count} 个已有的对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="397" />
        <source>The file holds no chats; nothing was imported.</source>
        <translation>文件中没有对话，未导入任何内容。</translation>
    </message>
</context>
<context>
    <name>StartupProblem</name>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="51" />
        <source>LocalMind cannot start: the disk is full.</source>
        <translation>LocalMind 无法启动：磁盘已满。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="52" />
        <source>Your conversations are safe in {path}; nothing is damaged. LocalMind needs a little free space on that disk to open them. Free some space, then choose Try again. Meanwhile you can open them read-only to read and export them.</source>
        <translation>你的对话安全地保存在 {path}，没有任何损坏。LocalMind 需要该磁盘上有少量可用空间才能打开它们。请释放一些空间，然后选择“重试”。在此之前，你可以以只读方式打开，阅读并导出对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="62" />
        <source>Your conversations are on a read-only disk or in a read-only file.</source>
        <translation>你的对话位于只读磁盘上或只读文件中。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="65" />
        <source>They are safe in {path}. LocalMind can open them read-only: you can read, search and export them, but nothing new can be saved. To chat again, make the file and its folder writable (or the disk), then start LocalMind again.</source>
        <translation>它们安全地保存在 {path}。LocalMind 可以以只读方式打开：你可以阅读、搜索和导出，但无法保存新内容。若要继续聊天，请让该文件及其文件夹（或磁盘）可写，然后重新启动 LocalMind。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="75" />
        <source>Another program is using your conversations.</source>
        <translation>另一个程序正在使用你的对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="76" />
        <source>{path} is locked by another program (for example a LocalMind command running in a terminal, or a backup or sync tool). Your conversations are safe. Wait for it to finish or close it, then choose Try again.</source>
        <translation>{path} 被另一个程序锁定（例如在终端中运行的 LocalMind 命令，或备份、同步工具）。你的对话是安全的。请等待它完成或将其关闭，然后选择“重试”。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="86" />
        <source>Part of your conversation database is damaged.</source>
        <translation>对话数据库有一部分已损坏。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="87" />
        <source>LocalMind found damage in {path}. It can copy everything that is still readable into a new database and keep the damaged file beside it, untouched. Choose Recover my conversations to do it now.</source>
        <translation>LocalMind 发现 {path} 已损坏。它可以把所有仍可读取的内容复制到一个新数据库中，并将损坏的文件原样保留在旁边。选择“恢复我的对话”立即进行。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="97" />
        <source>These conversations were saved by a newer LocalMind.</source>
        <translation>这些对话由更新版本的 LocalMind 保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="98" />
        <source>{path} uses a newer format than this version knows. Update LocalMind to open them; nothing was changed.</source>
        <translation>{path} 使用了此版本无法识别的新格式。请更新 LocalMind 后再打开；没有做任何更改。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="105" />
        <source>LocalMind cannot open your conversations.</source>
        <translation>LocalMind 无法打开你的对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="113" />
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="114" />
        <source>Open read-only</source>
        <translation>以只读方式打开</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="115" />
        <source>Recover my conversations</source>
        <translation>恢复我的对话</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="116" />
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="117" />
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="187" />
        <source>Saved: {conversations} conversations with {messages} messages.</source>
        <translation>已保存：{conversations} 个对话，共 {messages} 条消息。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="194" />
        <source>Not complete — some messages could not be read ({count}): {titles}.</source>
        <translation>不完整——部分消息无法读取（{count} 个）：{titles}。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="200" />
        <source>{count} conversations whose title could not be read are named “Recovered chat”.</source>
        <translation>{count} 个标题无法读取的对话已命名为“Recovered chat”。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="206" />
        <source>A few unreadable fragments could not be matched to any conversation.</source>
        <translation>少量无法读取的片段无法对应到任何对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="211" />
        <source>The damaged file is kept, untouched, at {path}.</source>
        <translation>损坏的文件已原样保留在 {path}。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="217" />
        <source>All your conversations were recovered.</source>
        <translation>你的所有对话都已恢复。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="219" />
        <source>Your conversations were recovered, except for what is listed.</source>
        <translation>你的对话已恢复，下列内容除外。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="251" />
        <source>The conversations could not be recovered.</source>
        <translation>无法恢复这些对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="252" />
        <source>{error}

The damaged file was not changed. 'localmind export --all -o chats.json' in a terminal saves every conversation that can still be read.</source>
        <translation>{error}

损坏的文件没有被改动。在终端中运行 'localmind export --all -o chats.json' 可保存所有仍可读取的对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="265" />
        <source>Read-only: nothing new can be saved.</source>
        <translation>只读：无法保存新内容。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="266" />
        <source>Your conversations are open read-only. You can read, search and export them. To chat again, make the data folder writable and start LocalMind again.</source>
        <translation>你的对话以只读方式打开。你可以阅读、搜索和导出它们。若要继续聊天，请让数据文件夹可写，然后重新启动 LocalMind。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="407" />
        <source>1 answer is not saved yet.</source>
        <translation>有 1 个回答尚未保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="409" />
        <source>{count} answers are not saved yet.</source>
        <translation>有 {count} 个回答尚未保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/ui/store_dialogs.py" line="411" />
        <source>LocalMind could not store it in your conversations: the disk is full, read-only, or another program holds them. Free some space (or close that program), then choose Try again. If you quit now, LocalMind writes the answer to a text file in {home} instead.</source>
        <translation>LocalMind 无法把它保存到你的对话中：磁盘已满、只读，或被另一个程序占用。请释放一些空间（或关闭那个程序），然后选择“重试”。如果现在退出，LocalMind 会改为把回答写入 {home} 中的一个文本文件。</translation>
    </message>
</context>
<context>
    <name>StoreProblem</name>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="41" />
        <source>The answer is not saved yet: the disk is full.</source>
        <translation>回答尚未保存：磁盘已满。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="42" />
        <source>Everything saved before it is safe. This answer is kept in memory and LocalMind keeps trying to save it. Free some space on the disk that holds {folder}, and keep LocalMind open until it says the answer is saved.</source>
        <translation>此前保存的内容都是安全的。这个回答暂存在内存中，LocalMind 会不断尝试保存。请在存放 {folder} 的磁盘上释放一些空间，并保持 LocalMind 打开，直到提示回答已保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="51" />
        <source>The answer is not saved yet: another program is using your conversations.</source>
        <translation>回答尚未保存：另一个程序正在使用你的对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="54" />
        <source>It is kept in memory and is saved as soon as the other program lets go (a 'localmind import' in a terminal, a backup or sync tool). Keep LocalMind open until it says the answer is saved.</source>
        <translation>它暂存在内存中，一旦另一个程序（终端中的 'localmind import'、备份或同步工具）释放就会保存。请保持 LocalMind 打开，直到提示回答已保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="62" />
        <source>The answer cannot be saved: your conversations are read-only.</source>
        <translation>无法保存回答：你的对话是只读的。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="63" />
        <source>It is kept in memory while LocalMind stays open; copy it (the Copy button under it) if you need it. Make {folder} writable again and LocalMind saves it.</source>
        <translation>在 LocalMind 保持打开期间，它暂存在内存中；如有需要，请复制它（回答下方的“复制”按钮）。让 {folder} 重新可写后，LocalMind 会保存它。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="71" />
        <source>The answer cannot be saved: the conversation database is damaged.</source>
        <translation>无法保存回答：对话数据库已损坏。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="74" />
        <source>Copy the answer (the Copy button under it) if you need it. Then quit and start LocalMind again: it recovers everything readable into a new database and keeps the damaged file.</source>
        <translation>如有需要，请先复制回答（回答下方的“复制”按钮）。然后退出并重新启动 LocalMind：它会把所有可读取的内容恢复到一个新数据库中，并保留损坏的文件。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="81" />
        <source>The answer is not saved yet.</source>
        <translation>回答尚未保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="82" />
        <source>{error} It is kept in memory and LocalMind keeps trying to save it.</source>
        <translation>{error} 它暂存在内存中，LocalMind 会不断尝试保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="91" />
        <source>The disk that holds {folder} is full, so it could not be saved; it is back in the message box. Everything saved before is safe. Free some space, then press Enter again.</source>
        <translation>存放 {folder} 的磁盘已满，因此无法保存；消息已放回输入框。此前保存的内容都是安全的。请释放一些空间，然后再按一次 Enter。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="97" />
        <source>Another program is using your conversations right now (for example a 'localmind import' in a terminal). Your message is back in the message box; press Enter again in a moment.</source>
        <translation>另一个程序正在使用你的对话（例如终端中的 'localmind import'）。你的消息已放回输入框；请稍后再按一次 Enter。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="103" />
        <source>Your conversations are open read-only, so nothing new can be saved. Your message is back in the message box; you can still read, search and export your chats.</source>
        <translation>你的对话以只读方式打开，无法保存新内容。你的消息已放回输入框；你仍然可以阅读、搜索和导出对话。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="109" />
        <source>The conversation database is damaged. Your message is back in the message box. Quit and start LocalMind again: it recovers everything readable into a new database.</source>
        <translation>对话数据库已损坏。你的消息已放回输入框。请退出并重新启动 LocalMind：它会把所有可读取的内容恢复到一个新数据库中。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="114" />
        <source>{error} Your message is back in the message box.</source>
        <translation>{error} 你的消息已放回输入框。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="122" />
        <source>The disk that holds {folder} is full, so nothing was changed. Free some space, then try again.</source>
        <translation>存放 {folder} 的磁盘已满，因此没有做任何更改。请释放一些空间后重试。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="127" />
        <source>Another program is using your conversations right now, so nothing was changed. Try again in a moment.</source>
        <translation>另一个程序正在使用你的对话，因此没有做任何更改。请稍后重试。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="132" />
        <source>Your conversations are open read-only, so nothing can be changed.</source>
        <translation>你的对话以只读方式打开，无法做任何更改。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="136" />
        <source>The conversation database is damaged, so nothing was changed. Quit and start LocalMind again to recover it.</source>
        <translation>对话数据库已损坏，因此没有做任何更改。请退出并重新启动 LocalMind 以恢复它。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="146" />
        <source>Part of your conversation database is damaged, and this chat is on the damaged part; your other chats can still be opened. Quit and start LocalMind again: it recovers everything readable into a new database and keeps the damaged file.</source>
        <translation>对话数据库有一部分已损坏，而这个对话正位于损坏的部分；其他对话仍可打开。请退出并重新启动 LocalMind：它会把所有可读取的内容恢复到一个新数据库中，并保留损坏的文件。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="236" />
        <source>The answer is saved now.</source>
        <translation>回答现已保存。</translation>
    </message>
    <message>
        <location filename="../../work/wt/store/src/localmind/models/reply_saver.py" line="237" />
        <source>Nothing was lost.</source>
        <translation>没有丢失任何内容。</translation>
    </message>
</context>
<context>
    <name>engine</name>
    <message>
        <source>No documents are indexed yet ({path} does not exist).</source>
        <translation>尚未索引任何文档（{path} 不存在）。</translation>
    </message>
    <message>
        <source>Add some with: localmind docs add FILE_OR_FOLDER</source>
        <translation>可用以下命令添加：localmind docs add 文件或文件夹</translation>
    </message>
    <message>
        <source>The document index at {path} cannot be written (its folder or the disk is read-only).</source>
        <translation>无法写入位于 {path} 的文档索引（其所在文件夹或磁盘为只读）。</translation>
    </message>
    <message>
        <source>Searching still works: localmind docs search QUERY. To add documents, make that folder writable.</source>
        <translation>搜索仍然可用：localmind docs search 查询内容。若要添加文档，请让该文件夹可写。</translation>
    </message>
    <message>
        <source>Another program is using the document index at {path} right now ({reason}).</source>
        <translation>另一个程序正在使用位于 {path} 的文档索引（{reason}）。</translation>
    </message>
    <message>
        <source>Wait until it finishes (for example a 'localmind docs add' in a terminal), then try again.</source>
        <translation>请等待它完成（例如终端中的 'localmind docs add'），然后重试。</translation>
    </message>
    <message>
        <source>Message {id} has no version {version}.</source>
        <translation>消息 {id} 没有第 {version} 个版本。</translation>
    </message>
</context>
<context>
    <name>MessageWidget</name>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>No matching passages in your documents</source>
        <translation>您的文档中没有匹配的段落</translation>
    </message>
</context>
<context>
    <name>VersionSwitcher</name>
    <message>
        <source>Previous answer</source>
        <translation>上一个回答</translation>
    </message>
    <message>
        <source>Next answer</source>
        <translation>下一个回答</translation>
    </message>
    <message>
        <source>Answer {number} of {count}</source>
        <translation>第 {number} 个回答，共 {count} 个</translation>
    </message>
</context>
<context>
    <name>DocumentsFeature</name>
    <message>
        <source>You have not added any documents yet.</source>
        <translation>您还没有添加任何文档。</translation>
    </message>
    <message>
        <source>Add files or a folder on the Documents page; until then answers come from the model alone.</source>
        <translation>请在“文档”页面添加文件或文件夹；在此之前，回答仅来自模型本身。</translation>
    </message>
</context>
<context>
    <name>ChatSession</name>
    <message>
        <source>The answer could not be changed.</source>
        <translation>无法更改该回答。</translation>
    </message>
</context>
</TS>
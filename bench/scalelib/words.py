"""The word lists of ``scalelib.chat``, written for this bench (one ``|``-separated string each,
so a list reads as a paragraph)."""

from __future__ import annotations


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split("|") if part.strip())


CHATTER = _split("""
ok | ok thanks | thanks! | thank you so much | lol | haha | hmm | yes | yes please | no | nope |
sure | cool | nice | great, that worked | perfect | got it | wait what | hm, not quite |
that's not what I meant | go on | continue | ? | ty | brb | makes sense | ugh | oh no | right |
fair enough | can you shorten that? | say that again but simpler | again please | k | 👍 |
good morning | night! | I'm back | never mind | sorry, typo | exactly | not sure | maybe later
""")
ACKS = _split("""
Sure! | Done. | Got it. | You're welcome! | Happy to help. | Noted. | Of course, here you go. |
Good catch, fixed. | No problem. | Glad it worked!
""")
NOUNS = _split("""
invoice | deadline | budget | meeting | flight | hotel | recipe | garden | server | database |
migration | report | slide deck | contract | apartment | bike | laptop | printer | spreadsheet |
playlist | wedding | birthday party | dentist appointment | marathon | training plan | lease |
tax return | newsletter | pull request | API | docker image | backup | router |
password manager | calendar | grocery list | visa | cover letter | interview | essay | thesis |
podcast | camera | kettle | sofa
""")
VERBS = _split("""
fix | plan | book | cancel | write | rewrite | summarise | translate | deploy | debug | migrate |
schedule | compare | organise | clean up | back up | update | review | set up | speed up |
explain | price | split | merge | test | pack
""")
TOOLS = _split("""
python | excel | git | postgres | docker | bash | vscode | notion | figma | rust | typescript |
nginx | linux | google sheets | obsidian | kubernetes | react
""")
PEOPLE = _split("""
my sister | my boss | my landlord | my partner | a client | my mum | my dad | my flatmate |
the team | my friend | my neighbour | our teacher
""")
DAYS = _split("""
Monday | Tuesday | Wednesday | Thursday | Friday | Saturday | Sunday | tomorrow | next week |
tonight | this weekend | in March | on the 14th
""")
PLACES = _split("""
Lisbon | Kyoto | Berlin | Oaxaca | Leeds | Tromso | Hanoi | Porto | Nairobi | Montreal |
the office | the coast | my parents' place
""")
CHINESE = _split("""
今天开会开到很晚 | 帮我写一封邮件 | 这个报错是什么意思 | 明天要去机场接人 | 谢谢 | 好的 |
我想把预算表整理一下 | 周末一起去爬山吧 | 这个方案可以吗 | 能不能再简单一点 | 我妈下周生日 |
服务器又挂了 | 帮我翻译成英文 | 我在学做饭 | 合同明天到期 | 哈哈哈 | 嗯嗯 | 收到
""")
SYLLABLES = _split("""
ka | lo | mi | ne | ru | sa | ti | vo | ber | dan | fel | gor | hul | jin | kem | lor | mav |
nip | quo | rist | zan | ex | ol | tri
""")

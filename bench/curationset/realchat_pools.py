"""The word pools of the real-looking chat generator (``realchat``): facts and chatter kinds.

Written for reverie's bench by hand; nothing here comes from a public benchmark. A fact
template is what a person says in the first person, with ``{slot}`` values drawn from
``VALUES``, and its gold annotation (``{who}`` is the speaker's name; bracketed terms are
the keys ``model.keys`` reads). A chatter template is a line that carries no lasting
information, by kind; ``{other}`` is the person spoken to. English and Chinese.
"""

from __future__ import annotations

FactTemplate = tuple[str, str]
"""(what the speaker says, the gold fact with [keys])."""

VALUES: dict[str, tuple[str, ...]] = {
    "city": ("Lyon", "Porto", "Leeds", "Graz", "Tartu", "Valencia", "Bergen", "Quebec"),
    "job": ("nurse", "welder", "librarian", "pharmacist", "architect", "paramedic"),
    "company": ("Northwind", "Fabrikam", "Globex", "Initech", "Vandelay"),
    "pet": ("Biscuit", "Mochi", "Pepper", "Juniper", "Waffles", "Tofu"),
    "animal": ("beagle", "tabby cat", "parrot", "corgi", "rabbit"),
    "instrument": ("cello", "ukulele", "banjo", "clarinet", "harp"),
    "race": ("half marathon", "triathlon", "10k trail race"),
    "month": ("March", "May", "October", "November"),
    "sibling": ("Lena", "Marco", "Ines", "Yusuf", "Hana"),
    "school": ("Ghent University", "Aalto", "Trinity College"),
    "place": ("animal shelter", "food bank", "community garden", "public library"),
    "allergen": ("peanuts", "shellfish", "penicillin", "latex"),
    "town": ("Kilkenny", "Sintra", "Bamberg", "Hoi An", "Cusco"),
    "dish": ("ramen", "paella", "pierogi", "shakshuka"),
    "language": ("Portuguese", "Korean", "Swahili", "Dutch"),
    "unit": ("Celsius", "kilometres", "metric units"),
    "day": ("Thursday", "Tuesday", "Friday"),
    "tool": ("Postgres", "Terraform", "Kafka", "Redis"),
    "zh_city": ("成都", "杭州", "厦门", "青岛", "昆明"),
    "zh_pet": ("豆豆", "团子", "可乐", "年糕"),
    "zh_job": ("护士", "程序员", "老师", "设计师"),
    "zh_hobby": ("书法", "攀岩", "古筝", "摄影"),
}

EN_FACTS: tuple[FactTemplate, ...] = (
    ("I moved to {city} two years ago for work.", "[{who}] moved to [{city}]"),
    ("I work as a {job} at {company}.", "[{who}] works as a [{job}]"),
    ("My pet {pet} is a {animal}.", "[{pet}] is a [{animal}]"),
    ("I have been learning the {instrument} since last spring.", "[{who}] [{instrument}]"),
    ("I'm training for a {race} in {month}.", "[{who}] [{race}]"),
    ("My sister {sibling} just started at {school}.", "[{sibling}] [{school}]"),
    ("I volunteer at the {place} on Saturdays.", "[{who}] volunteers at the [{place}]"),
    ("I'm allergic to {allergen}.", "[{who}] allergic to [{allergen}]"),
    ("I grew up in {town}.", "[{who}] grew up in [{town}]"),
    ("My favourite dish is {dish}.", "[{who}] favourite dish is [{dish}]"),
    ("I speak {language} with my grandparents.", "[{who}] speaks [{language}]"),
)

ASSISTANT_FACTS: tuple[FactTemplate, ...] = (
    ("I live in {city} with my partner.", "Lives in [{city}]"),
    ("I work as a {job} at {company}.", "Works as a [{job}]"),
    ("I'm allergic to {allergen}.", "Allergic to [{allergen}]"),
    ("Remember that I prefer {unit}.", "Prefers [{unit}]"),
    ("Our deploys go out on {day}s.", "[deploys] go out on [{day}]s"),
    ("We store the audit logs in {tool}.", "Audit logs in [{tool}]"),
    ("My cat is called {pet}.", "Cat called [{pet}]"),
)

ZH_FACTS: tuple[FactTemplate, ...] = (
    ("我去年搬到了{zh_city}。", "[{who}]搬到了[{zh_city}]"),
    ("我养了一只猫，叫{zh_pet}。", "[{who}]养了一只猫叫[{zh_pet}]"),
    ("我在医院做{zh_job}已经五年了。", "[{who}][{zh_job}]"),
    ("我每个周末都练{zh_hobby}。", "[{who}]周末练[{zh_hobby}]"),
)

EN_CHATTER: dict[str, tuple[str, ...]] = {
    "greeting": (
        "Hey {other}, long time no chat!",
        "Hi {other}! How's your week going?",
        "Good morning {other} ☀️",
        "heyyy {other} 👋",
        "Hello again!",
    ),
    "vocative": (
        "Cool, thanks {other}",
        "Congrats, {other}!",
        "Wow {other}, that's stunning",
        "Aw thanks {other} 🥰",
        "Nice one {other}!",
        "Haha {other} you're the best",
        "Thank you so much {other}!!",
        "Oh {other}, that sounds amazing",
    ),
    "encouragement": (
        "Keep it up!",
        "I'm up for the challenge!",
        "You got this 💪",
        "Go for it!",
        "Proud of you!",
        "Hang in there, it gets easier",
        "Don't give up on it",
        "Keep going, you're doing great",
    ),
    "photo": (
        "[image] look at this view!",
        "[photo] check this out 😍",
        "[image] guess where I am lol",
        "[image: sunset] Look how pretty it was!",
        "Sending you a pic, hold on",
    ),
    "smalltalk": (
        "I can't believe it's already Friday",
        "The weather has been so weird lately",
        "Lol same",
        "What are you up to this weekend?",
        "That made my day honestly",
        "Time flies!",
        "omg yes 😂😂",
        "Anyway how have you been?",
        "Realy? thats so funny",
        "Haha I know right",
    ),
    "leaving": (
        "Gotta run, talk soon!",
        "Ok I'm off to bed, night!",
        "Catch you later {other}!",
    ),
}

REQUESTS: tuple[str, ...] = (
    "Deploy on {day} please",
    "Send me the meeting notes tomorrow pls",
    "Remind me to call the dentist",
    "Please add milk to the shopping list",
    "Remember that they prefer {unit}",
    "Can you move the standup to 10?",
    "Book the usual table for Friday please",
)

ZH_CHATTER: dict[str, tuple[str, ...]] = {
    "greeting": ("{other}，好久不见！", "早上好呀{other}", "嗨嗨\uff5e"),
    "vocative": ("谢谢{other}\uff5e", "哇{other}，太美了吧", "恭喜恭喜{other}！"),
    "encouragement": ("加油！你可以的💪", "坚持下去就好", "继续努力哦"),
    "photo": ("[图片] 看看这个风景！", "[图片] 你猜我在哪"),
    "smalltalk": ("哈哈哈哈笑死", "今天好热啊", "对啊对啊", "最近怎么样？"),
    "leaving": ("我先去忙啦，回聊", "晚安\uff5e"),
}

ZH_REQUESTS: tuple[str, ...] = ("周四部署一下，谢谢", "记得提醒我明天交报告")

EN_NAMES = ("Maria", "Tom", "Sam", "Ana", "Priya", "Jonas", "Leila", "Omar", "Keiko", "Rafael")
ZH_NAMES = ("小林", "王芳", "李雷", "陈晨", "阿杰")

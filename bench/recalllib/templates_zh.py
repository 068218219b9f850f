"""Chinese material for the dev set: speakers, chat, distractors and fact templates."""

from __future__ import annotations

import random

from recalllib.templates import Fact, Language, Said


def _pet(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="static",
        owner=owner,
        slots={"pet": rng.choice(["豆豆", "年糕", "可乐", "汤圆"])},
        steps=(
            Said(
                text="我们周末领养了一只柯基，给它取名叫{pet}。", lead_in="最近家里有什么新鲜事吗？"
            ),
        ),
        questions=("{owner}家的狗叫什么名字？",),
    )


def _job(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="static",
        owner=owner,
        slots={"firm": rng.choice(["星河科技", "青禾设计", "远山医院", "蓝鲸物流"])},
        steps=(Said(text="我已经签了合同，下个月去{firm}上班。", lead_in="面试结果出来了吗？"),),
        questions=("{owner}接受了哪家公司的工作？",),
    )


def _city(rng: random.Random, owner: int) -> Fact:
    first, second = rng.sample(["成都", "厦门", "杭州", "青岛", "昆明"], 2)
    return Fact(
        kind="update",
        owner=owner,
        slots={"first": first, "second": second},
        steps=(
            Said(text="我在{first}租的房子虽然小，但是很喜欢这个小区。"),
            Said(text="告诉你，我们上周正式搬到{second}了！"),
        ),
        questions=("{owner}现在住在哪个城市？",),
    )


def _race(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="date",
        owner=owner,
        slots={"race": rng.choice(["西湖半程马拉松", "环岛十公里", "山地越野赛"])},
        steps=(Said(text="上周六我跑完了{race}，成绩比目标还快！"),),
        questions=("{owner}什么时候参加的{race}？", "{owner}{when}跟我说了什么？"),
    )


def _hobby(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="static",
        owner=owner,
        slots={"hobby": rng.choice(["陶艺", "攀岩", "书法", "烘焙"])},
        steps=(Said(text="我报了一个{hobby}班，每周四晚上上课，第一节课超开心。"),),
        questions=("{owner}最近开始了什么爱好？",),
    )


def _allergy(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="static",
        owner=owner,
        slots={"food": rng.choice(["花生", "海鲜", "芒果"])},
        steps=(Said(text="医生确认了，我对{food}过敏，以后不能再吃了。"),),
        questions=("{owner}不能吃什么食物？",),
    )


def _trip(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="date",
        owner=owner,
        slots={"place": rng.choice(["京都", "冰岛", "大理", "清迈"])},
        steps=(Said(text="机票订好了！我们{day}出发去{place}，玩两个星期。"),),
        questions=("{owner}两周的假期要去哪里旅行？",),
    )


def _rent(rng: random.Random, owner: int) -> Fact:
    old, new = rng.choice([("3200", "3600"), ("4500", "4900")])
    return Fact(
        kind="update",
        owner=owner,
        slots={"old": old, "new": new},
        steps=(
            Said(text="房租一个月{old}块，暂时还能接受。"),
            Said(text="房东又涨价了，以后每个月要交{new}。"),
        ),
        questions=("{owner}现在每月房租多少钱？",),
    )


ZH = Language(
    code="zh",
    pairs=(("小林", "阿杰"), ("王芳", "李明")),
    greetings=("嗨{other}，最近怎么样？", "{other}，好久不见！", "早上好{other}！"),
    filler=(
        "哈哈，确实是这样。",
        "这周天气一直阴沉沉的。",
        "我今天又煮了面条，没什么新意。",
        "工作挺忙的，不过还好。",
        "我也是，就是有点累。",
        "太好了，真替你高兴。",
        "我应该早点睡觉。",
        "周末我们追了一整部剧。",
        "快跟我说说！",
        "哎呀，那真烦人。",
        "先喝咖啡再说话。",
        "手机屏幕又摔碎了。",
        "改天好好聊聊。",
        "今天早上堵车特别严重。",
        "听起来不错。",
    ),
    distractors=(
        "邻居家的狗整晚叫个不停。",
        "我表妹一直说想搬到别的城市。",
        "看了一个关于马拉松的纪录片。",
        "这里的房价太离谱了。",
        "我一直想学个新爱好，但总没时间。",
        "现在食物过敏的人好像越来越多。",
        "我们也想去旅行，还没想好去哪里。",
        "朋友在一家公司上班，说加班很多。",
    ),
    facts=(_pet, _job, _city, _race, _hobby, _allergy, _trip, _rent),
    joiner="",
)

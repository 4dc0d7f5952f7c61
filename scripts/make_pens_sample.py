"""Write the shipped PENS-format sample (``data/pens_sample``) from templates written for this project.

Fictional companies and towns; each article is one business event told from six angles (markets, workers,
local community, climate, household costs, technology), one sentence per angle. Each user follows one or two
angles: their click history holds angle-specific headlines and their rewritten titles tell the article from
their angle. Deterministic (``--seed``); rerun to regenerate the committed files.

    python scripts/make_pens_sample.py data/pens_sample
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from persona_metrics.datasets.pens import write_pens

COMPANIES = [
    ("Northwind Rail", "autos"),
    ("Copperfield Bank", "finance"),
    ("Harbor Foods", "foodanddrink"),
    ("Brightwater Energy", "news"),
    ("Lumen Telecom", "news"),
    ("Skyline Airways", "travel"),
    ("Orchard Foods", "foodanddrink"),
    ("Nimbus Robotics", "finance"),
    ("Fenwick Biotech", "health"),
    ("Larkspur Homes", "lifestyle"),
    ("Corvid Logistics", "finance"),
    ("Zephyr Scooters", "autos"),
    ("Pennywise Pets", "lifestyle"),
    ("Tessaro Semiconductor", "finance"),
    ("Aldmoor Hotels", "travel"),
    ("Meridale Clinics", "health"),
]
TOWNS = ["Millbrook", "Eastbrook", "Riverside", "Westfield", "Pinegate", "Port Ellis", "Dayton Falls", "Greystone"]
ANGLES = ("markets", "workers", "local", "climate", "household", "technology")

# event → (headline, lead, {angle: (body sentence, (title variant 1, title variant 2))})
EVENTS = {
    "expansion": (
        "{c} to open new site in {t}",
        "{c} said on {d} it will open a new site in {t} next year, its biggest investment in a decade.",
        {
            "markets": (
                "The ${a} million project lifted {c} shares {p}% as analysts raised profit forecasts.",
                ("{c} shares jump {p}% on ${a} million expansion", "Investors cheer {c} ${a} million plan"),
            ),
            "workers": (
                "The site will create {j} permanent jobs, and {c} promised training for local hires.",
                ("{j} new jobs coming with {c} site in {t}", "{c} to hire {j} workers in {t}"),
            ),
            "local": (
                "{t} council leaders said the project would revive the old industrial park near the river.",
                ("{t} industrial park revived by {c} project", "{c} brings new life to {t} riverside"),
            ),
            "climate": (
                "{c} said the buildings will run on rooftop solar and cut emissions per unit by a third.",
                ("Solar-powered {c} site to cut emissions by a third", "{c} promises low-carbon site in {t}"),
            ),
            "household": (
                "The company expects the larger site to lower its delivery costs and hold prices steady.",
                ("{c} says new site will keep prices steady", "Steady prices promised as {c} grows"),
            ),
            "technology": (
                "The site will use automated sorting systems and a private 5G network.",
                ("{c} site to run automated sorting on private 5G", "Automation at heart of {c} plan"),
            ),
        },
    ),
    "earnings": (
        "{c} beats forecasts with {p}% sales growth",
        "{c} reported quarterly sales up {p}% on {d}, ahead of analysts' forecasts.",
        {
            "markets": (
                "Profit reached ${a} million and the company raised its full-year outlook, sending shares higher.",
                ("{c} profit hits ${a} million, outlook raised", "{c} lifts outlook after ${a} million profit"),
            ),
            "workers": (
                "{c} said all {j} staff would receive a one-off bonus after the strong quarter.",
                ("{c} staff get bonus after record quarter", "Bonus for {j} {c} employees"),
            ),
            "local": (
                "The company's headquarters in {t} will host a new visitor centre funded from the gains.",
                ("{t} to get {c} visitor centre", "{c} gains fund new centre in {t}"),
            ),
            "climate": (
                "Sales of its lower-emission products grew fastest, the company said.",
                ("Green products drive {c} growth", "Low-emission lines lead {c} sales"),
            ),
            "household": (
                "{c} said it would pass some savings to customers with lower fees from next month.",
                ("{c} to cut customer fees after strong quarter", "Lower fees promised by {c}"),
            ),
            "technology": (
                "Online orders through its new app made up a quarter of sales for the first time.",
                ("{c} app now a quarter of sales", "New {c} app drives online orders"),
            ),
        },
    ),
    "cutbacks": (
        "{c} to cut costs as demand slows",
        "{c} announced a cost-cutting plan on {d}, saying demand had slowed for a third quarter.",
        {
            "markets": (
                "The plan should save ${a} million a year, and the shares rose {p}% on the news.",
                ("{c} shares up {p}% on ${a} million savings plan", "Savings of ${a} million please investors"),
            ),
            "workers": (
                "About {j} jobs will go, most of them at the plant in {t}, and unions called for talks.",
                ("{j} jobs to go at {c} in {t}", "Unions seek talks as {c} cuts {j} jobs"),
            ),
            "local": (
                "{t} officials warned the cuts would hit local suppliers and the town's tax revenue.",
                ("{t} fears for suppliers after {c} cuts", "{c} cuts worry {t} officials"),
            ),
            "climate": (
                "{c} said it would still complete its switch to electric delivery vans by 2028.",
                ("{c} keeps electric van pledge despite cuts", "Cuts spare {c} electric fleet plan"),
            ),
            "household": (
                "Customers will see fewer service points but no price rises this year, the company said.",
                ("No price rises at {c} this year despite cuts", "{c} customers face fewer service points"),
            ),
            "technology": (
                "{c} will replace its call centres with an automated support assistant.",
                ("{c} swaps call centres for automated assistant", "Automated support replaces {c} staff"),
            ),
        },
    ),
    "recall": (
        "{c} recalls products after safety reports",
        "{c} recalled thousands of products on {d} after customers reported faults.",
        {
            "markets": (
                "The recall will cost about ${a} million and the shares fell {p}%.",
                ("{c} shares fall {p}% on ${a} million recall", "Recall to cost {c} ${a} million"),
            ),
            "workers": (
                "Production at the {t} plant will pause for a week while {j} workers are paid in full.",
                ("{c} workers in {t} paid during recall pause", "{t} plant pauses but {j} staff keep pay"),
            ),
            "local": (
                "Shops in {t} set up collection points for the returned products.",
                ("{t} shops collect recalled {c} products", "Collection points open in {t} for {c} recall"),
            ),
            "climate": (
                "{c} said returned items would be repaired or recycled rather than sent to landfill.",
                ("Recalled {c} items to be recycled, not dumped", "{c} pledges to recycle recalled goods"),
            ),
            "household": (
                "Customers can return the items for a full refund at any store.",
                ("How to get a refund for recalled {c} products", "Full refunds offered in {c} recall"),
            ),
            "technology": (
                "The fault was traced to a software update that disabled a safety sensor.",
                ("Software update behind {c} recall", "Faulty sensor update forces {c} recall"),
            ),
        },
    ),
}


def fill(template: str, slots: dict[str, str]) -> str:
    """Fill ``{c} {t} {d} {a} {p} {j}`` slots."""
    return template.format(**slots)


def article(rng: random.Random, event: str, company: str) -> tuple[str, dict[str, str], dict[str, tuple[str, str]]]:
    """Headline, body sentences and title variants of one article."""
    day = rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"])
    slots = {
        "c": company,
        "t": rng.choice(TOWNS),
        "d": day,
        "a": str(rng.randint(12, 480)),
        "p": str(rng.randint(2, 14)),
        "j": str(rng.randint(4, 60) * 10),
    }
    headline, lead, angles = EVENTS[event]
    body = {"lead": fill(lead, slots)} | {a: fill(s, slots) for a, (s, _) in angles.items()}
    titles = {a: (fill(v[0], slots), fill(v[1], slots)) for a, (_, v) in angles.items()}
    return fill(headline, slots), body, titles


def main(argv: list[str] | None = None) -> int:
    """Write news.tsv and personalized_test.tsv."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    users = {f"NT{i + 1}": tuple(sorted({ANGLES[i % 6], ANGLES[(i * 5 + 2) % 6]})) for i in range(14)}
    news_rows, test = [], []
    for i in range(64):
        company, category = COMPANIES[i % len(COMPANIES)]
        headline, body, titles = article(rng, list(EVENTS)[i // 16], company)
        order = ["lead", *rng.sample(ANGLES, len(ANGLES))]
        news_rows.append((f"N{20001 + i}", category, headline, " ".join(body[k] for k in order)))
        test.append((f"N{20001 + i}", titles))
    history: dict[str, list[str]] = {u: [] for u in users}
    for i in range(36):  # history-only articles: an angle-specific headline, clicked by that angle's followers
        company, category = COMPANIES[(i * 3) % len(COMPANIES)]
        headline, body, titles = article(rng, list(EVENTS)[i % 4], company)
        angle = ANGLES[i % 6]
        news_id = f"N{30001 + i}"
        news_rows.append((news_id, category, titles[angle][0], " ".join([body["lead"], body[angle]])))
        for user, angles in users.items():
            if angle in angles:
                history[user].append(news_id)
    assigned: dict[str, list[tuple[str, str]]] = {u: [] for u in users}
    for news_id, titles in test:
        used: set[str] = set()  # real PENS titles are never identical: one (angle, variant) per reader
        for user in rng.sample(list(users), rng.randint(3, 6)):
            options = [titles[a][v] for a in users[user] for v in (0, 1) if titles[a][v] not in used]
            if options:
                title = rng.choice(options)
                used.add(title)
                assigned[user].append((news_id, title))
    users_rows = [
        (user, rng.sample(history[user], min(len(history[user]), 12)), items) for user, items in assigned.items()
    ]
    write_pens(args.out, news_rows, users_rows)
    sys.stdout.write(
        f"wrote {args.out}: 64 test articles, 36 history articles, {len(users)} users, "
        f"{sum(len(v) for v in assigned.values())} titles\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

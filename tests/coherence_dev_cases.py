"""Development cases for SummaryEval's robust coherence, written for this project by the helper that built it.

Invented news stories (every company, person and place is made up) with a good summary of three or four
sentences in the article's order. The robust method was designed on these cases and on ``data/cnndm_sample``;
they are not the shipped validity cases (``persona_metrics/validity/cases``), which were written separately and
measure it. ``variants`` derives the degraded summaries the validity properties name: every sentence repeated,
the sentences shuffled, one word.
"""

from __future__ import annotations

#: ``(name, article, good summary sentences)``.
DEV_CASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "ferry",
        "Norlund Ferries will retire six of its oldest vessels by 2027 and replace them with four battery-electric "
        "ships, the operator said on Thursday. The new ships, built by a shipyard in Gdansk, will cost about "
        "$640 million in total. Each can carry 1,200 passengers and 300 cars and recharges in 20 minutes at "
        "port. Norlund said fuel accounts for almost a third of its operating costs. The switch should cut the "
        "company's carbon emissions by 40 percent. Unions welcomed the plan but asked for training for engine "
        "crews. Norlund's shares were little changed.",
        (
            "Norlund Ferries will replace six old vessels with four battery-electric ships by 2027.",
            "The ships will cost about $640 million and recharge in 20 minutes at port.",
            "The company expects the switch to cut its carbon emissions by 40 percent.",
        ),
    ),
    (
        "bakery",
        "Halden Bakeries recalled 30,000 loaves of rye bread on Monday after customers found pieces of metal in "
        "them. The metal came from a broken mixing blade at its plant in Tromsbury, the company said. No injuries "
        "have been reported. The bread was sold in 400 supermarkets across three states. Customers can return it "
        "for a full refund. Halden has stopped the production line and hired an outside firm to inspect its "
        "equipment. The recall is the company's first in 25 years.",
        (
            "Halden Bakeries recalled 30,000 loaves of rye bread after customers found metal pieces in them.",
            "A broken mixing blade at its Tromsbury plant was to blame, and no injuries have been reported.",
            "Customers can return the bread for a full refund.",
            "It is the company's first recall in 25 years.",
        ),
    ),
    (
        "stadium",
        "The city of Carrow approved a $1.2 billion stadium for its football club on Tuesday after a six-hour "
        "council meeting. The vote was 7 to 4. The club will pay 60 percent of the cost and the city the rest, "
        "financed by a hotel tax. Supporters said the stadium will bring 3,000 construction jobs. Opponents "
        "argued that public money should go to schools and roads instead. Construction is due to start next "
        "spring and finish in 2029. The old stadium will be turned into housing.",
        (
            "Carrow's council approved a $1.2 billion football stadium by 7 votes to 4.",
            "The club will pay 60 percent and the city the rest through a hotel tax.",
            "However, opponents said the public money should go to schools and roads.",
            "Building starts next spring and should finish in 2029.",
        ),
    ),
    (
        "chipmaker",
        "Ostrava Microdevices cut its annual sales forecast on Wednesday, blaming weak demand for chips used in "
        "industrial machines. The company now expects revenue of $3.1 billion, down from $3.4 billion. Orders "
        "from factory-equipment makers fell 18 percent in the quarter. Demand for its car chips held up better, "
        "rising 2 percent. The company will cut 900 jobs, about 7 percent of its staff, to save $120 million a "
        "year. Its shares fell 11 percent, the biggest drop in three years. Analysts said the cuts had been "
        "expected.",
        (
            "Ostrava Microdevices lowered its annual revenue forecast to $3.1 billion from $3.4 billion.",
            "Orders from factory-equipment makers fell 18 percent, while car chip sales rose 2 percent.",
            "As a result, it will cut 900 jobs to save $120 million a year.",
            "Its shares dropped 11 percent.",
        ),
    ),
    (
        "drought",
        "Farmers in the Velmar valley have lost about half of their wheat harvest to the worst drought in 40 "
        "years, the regional agriculture office said. Rainfall since March has been a fifth of the usual level. "
        "Reservoirs are at 23 percent of capacity. The regional government will pay $85 million in emergency aid "
        "to 6,000 farms. It has also banned watering gardens and washing cars. Bread prices in the region have "
        "risen 9 percent since June. Forecasters expect rain to return in October.",
        (
            "A drought in the Velmar valley, the worst in 40 years, has destroyed about half of the wheat harvest.",
            "The regional government will pay $85 million in aid to 6,000 farms and has restricted water use.",
            "Bread prices have risen 9 percent since June.",
        ),
    ),
    (
        "airline",
        "Skyreach Airlines will start flights between Lisbon and Montreal in May, its first route to Canada. The "
        "carrier will fly three times a week with a new long-range narrow-body jet. Fares will start at $399 one "
        "way. Skyreach expects to carry 60,000 passengers on the route in its first year. The airline returned to "
        "profit last year after three years of losses. Its chief executive, Marta Quental, said more North "
        "American routes would follow. Rival carriers already serve the route from other European hubs.",
        (
            "Skyreach Airlines will launch its first Canadian route, Lisbon to Montreal, in May.",
            "It will fly three times a week, with one-way fares from $399.",
            "The carrier expects 60,000 passengers in the first year and plans more North American routes.",
        ),
    ),
    (
        "museum",
        "The Kessler Museum of Art reopened on Saturday after a three-year, $210 million renovation. The "
        "building now has 40 percent more gallery space and a new wing for photography. More than 8,000 visitors "
        "came on the first day. Admission will be free on Sundays for the first year, paid for by a donation from "
        "a local foundation. The renovation was delayed by a year when workers found asbestos in the roof. The "
        "museum's director, Ilse Varga, called the reopening a fresh start.",
        (
            "The Kessler Museum of Art reopened after a $210 million renovation that took three years.",
            "The building gained 40 percent more gallery space and a photography wing.",
            "More than 8,000 people visited on the first day.",
            "Sundays will be free for a year thanks to a foundation's donation.",
        ),
    ),
    (
        "bank",
        "Grantley Bank agreed to pay a $48 million fine to settle claims that it overcharged customers for "
        "overdrafts, the financial regulator said on Friday. Between 2018 and 2022 the bank charged fees on "
        "about 1.3 million accounts that should have been exempt. It will also refund $95 million to affected "
        "customers by the end of the year. Grantley did not admit wrongdoing. The regulator said the bank had "
        "cooperated with the investigation. Grantley's chief executive said the bank had changed its systems.",
        (
            "Grantley Bank will pay a $48 million fine over overdraft fees charged to 1.3 million accounts.",
            "It will also refund $95 million to customers by the end of the year.",
            "The bank did not admit wrongdoing but said it had changed its systems.",
        ),
    ),
    (
        "school",
        "The Ardent school district will move to a four-day week next autumn to save money and attract teachers, "
        "the school board decided on Monday. Classes will run from Tuesday to Friday, with longer days. The "
        "district expects to save $1.8 million a year on buses, heating and substitute staff. It has struggled "
        "to fill 45 teaching jobs. Parents were split: some welcomed the change, while others worried about "
        "childcare on Mondays. The district will offer supervised activities on Mondays for a small fee.",
        (
            "The Ardent school district will switch to a four-day week next autumn.",
            "The board expects to save $1.8 million a year and hopes to fill 45 open teaching jobs.",
            "Because some parents worry about childcare, the district will offer paid Monday activities.",
        ),
    ),
    (
        "telecom",
        "Pellucid Telecom will buy rival Marrow Networks for $3.8 billion in cash, creating the country's "
        "third-largest mobile operator. Pellucid will pay $14 a share, a 31 percent premium. The combined company "
        "will have 19 million customers. Pellucid expects $400 million in yearly savings, mainly from sharing "
        "masts. The deal needs approval from the competition authority, which blocked a similar merger in 2019. "
        "Marrow's shares jumped 27 percent.",
        (
            "Pellucid Telecom agreed to buy Marrow Networks for $3.8 billion in cash.",
            "The deal would create the third-largest mobile operator, with 19 million customers.",
            "However, it needs approval from the competition authority, which blocked a similar merger in 2019.",
        ),
    ),
    (
        "storm",
        "A winter storm left 210,000 homes without power across the northern provinces on Sunday. Winds reached "
        "140 kilometres an hour and snow fell for 30 hours. Two people died in traffic accidents. Crews restored "
        "power to half of the homes by Monday evening. The utility said the rest should be reconnected by "
        "Wednesday. Schools in four provinces stayed closed. The storm was the strongest since 2011.",
        (
            "A winter storm cut power to 210,000 homes in the northern provinces, with winds of 140 km/h.",
            "Two people died in traffic accidents.",
            "Half of the homes had power again by Monday, and the rest should by Wednesday.",
        ),
    ),
    (
        "startup",
        "Lumen Harvest, a vertical-farming start-up, raised $150 million from investors led by a pension fund. "
        "The company grows lettuce and herbs indoors under LED lights. It will use the money to build three farms "
        "near big cities. Each farm will produce 2,000 tonnes of greens a year. Lumen Harvest has not yet made a "
        "profit; its energy bill doubled last year. The founders said new lights cut power use by a quarter.",
        (
            "Vertical-farming start-up Lumen Harvest raised $150 million led by a pension fund.",
            "It will build three indoor farms near big cities, each producing 2,000 tonnes of greens a year.",
            "The company is not yet profitable after its energy bill doubled.",
        ),
    ),
    (
        "railway",
        "The national railway will raise ticket prices by an average of 6 percent from January, the transport "
        "ministry said. Season tickets for commuters will rise by 4 percent. The railway says it needs the money "
        "to replace 300 kilometres of worn track. Passenger groups called the increase unfair because trains were "
        "late on one in five journeys last year. The ministry promised compensation for delays over 15 minutes. "
        "Fares rose 5 percent last year.",
        (
            "Rail fares will rise by an average of 6 percent in January, and season tickets by 4 percent.",
            "The railway says the money will replace 300 kilometres of worn track.",
            "Passenger groups called the increase unfair, since one in five trains ran late last year.",
        ),
    ),
)


def variants(good: tuple[str, ...]) -> dict[str, str]:
    """The good summary and its degraded copies: ``repeated`` (s1 s1 s2 s2 …), ``reversed``, ``rotated``, one word."""
    return {
        "good": " ".join(good),
        "repeated": " ".join(s for sentence in good for s in (sentence, sentence)),
        "reversed": " ".join(reversed(good)),
        "rotated": " ".join(good[1:] + good[:1]),
        "one_word": good[0].split()[0],
    }

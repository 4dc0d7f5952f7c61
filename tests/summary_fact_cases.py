"""Development cases for SummaryEval's recall_precision completeness and its consistency check.

Written for this project by the helper that built both (every company, person and place is invented). Each case
is a news article, a good summary of it (sentences in the article's order, every figure and name taken from the
article), an off-topic sentence to insert into it, one figure and one name to change, and the same figures
written in other formats. The variants the tests use are derived by :func:`variants`. These are not the shipped
validity cases (``persona_metrics/validity/cases``), which were never read while designing either method.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One development article and how to spoil its good summary."""

    name: str
    article: str
    good: tuple[str, ...]
    off_topic: str
    number: tuple[str, str]  # (a figure of the good summary, the wrong figure written instead)
    entity: tuple[str, str]  # (a name of the good summary, the wrong name written instead)
    formats: tuple[tuple[str, str], ...]  # (a figure of the good summary, the same figure in another format)


CASES: tuple[Case, ...] = (
    Case(
        "turbines",
        "Kessling Energy will build 48 wind turbines off the coast of Marrow Bay, the company said on Tuesday. The "
        "project will cost $2.4 billion and is due to start producing power in 2028. Each turbine can generate 15 "
        "megawatts, enough in total to supply about 600,000 homes. Kessling's chief executive, Aurelia Brandt, said "
        "the company had secured financing from three banks. Fishing groups in Marrow Bay have objected to the plan, "
        "saying it will close 12 percent of their grounds. The regional government is expected to approve the "
        "project by March 2026. Kessling shares rose 4 percent after the announcement.",
        (
            "Kessling Energy will build 48 wind turbines off Marrow Bay for $2.4 billion, producing power from 2028.",
            "The turbines could supply about 600,000 homes, chief executive Aurelia Brandt said.",
            "Fishing groups object because the project would close 12 percent of their grounds.",
        ),
        "Meanwhile, a new bakery opened downtown and sells fresh croissants every morning.",
        ("48", "56"),
        ("Aurelia Brandt", "Aurelia Novak"),
        (("$2.4 billion", "$2,400m"), ("12 percent", "12%"), ("600,000", "600000"), ("48", "forty-eight")),
    ),
    Case(
        "recall",
        "Halvard Toys recalled 85,000 wooden puzzle sets on Friday after reports that small pieces could come loose. "
        "The sets were sold between June 2024 and January 2025 in 1,200 shops across Norway and Sweden. The company "
        "said it had received 14 reports of loose pieces but no injuries. Customers can return the sets to any shop "
        "for a refund of 299 kroner. Halvard's managing director, Tove Lindqvist, apologised and said a new supplier "
        "would make the pieces. The recall will cost the firm about 25 million kroner. Halvard employs 340 people at "
        "its plant in Eikeby.",
        (
            "Halvard Toys recalled 85,000 wooden puzzle sets sold in 1,200 shops across Norway and Sweden.",
            "The company had 14 reports of loose pieces but no injuries, and customers get a refund of 299 kroner.",
            "Managing director Tove Lindqvist apologised; the recall will cost about 25 million kroner.",
        ),
        "The local football club signed a young striker on a three-year contract.",
        ("85,000", "58,000"),
        ("Tove Lindqvist", "Tove Berglund"),
        (("85,000", "85000"), ("25 million", "25m"), ("14", "fourteen")),
    ),
    Case(
        "airline",
        "Corvina Air will cut 1,800 jobs and retire 22 of its oldest jets, the carrier said on Monday, after a "
        "quarterly loss of $310 million. Passenger numbers fell 9 percent from a year earlier, to 6.2 million. Chief "
        "executive Marco Ferrante blamed higher fuel prices and a strike by ground staff in Lisbon. The airline will "
        "close its routes to Dakar and Tunis in the autumn. Corvina said it expected to return to profit in 2026. Its "
        "shares fell 11 percent in Milan.",
        (
            "Corvina Air will cut 1,800 jobs and retire 22 jets after a quarterly loss of $310 million.",
            "Passenger numbers fell 9 percent to 6.2 million, which chief executive Marco Ferrante blamed on fuel "
            "prices and a strike in Lisbon.",
            "The airline expects to return to profit in 2026.",
        ),
        "A rare comet will be visible to the naked eye in the northern sky next week.",
        ("$310 million", "$370 million"),
        ("Marco Ferrante", "Marco Bellini"),
        (("$310 million", "310 million dollars"), ("9 percent", "9 per cent"), ("1,800", "1800")),
    ),
    Case(
        "hospital",
        "The Brenfield regional council approved a new 420-bed hospital on Wednesday, ending five years of debate. The "
        "hospital will cost 780 million euros and will be built on the site of a former steelworks in Orsley. It is "
        "due to open in September 2029 and will employ 2,300 staff. Council leader Priya Raman said the old hospital "
        "in Brenfield could no longer be repaired. Opponents wanted the new hospital in the town centre. About 60 "
        "percent of the cost will come from the national government.",
        (
            "Brenfield council approved a 420-bed hospital costing 780 million euros on a former steelworks site in "
            "Orsley.",
            "It is due to open in September 2029 with 2,300 staff, council leader Priya Raman said.",
            "About 60 percent of the cost will come from the national government.",
        ),
        "Scientists in Antarctica recorded the lowest winter temperature in a decade.",
        ("2,300", "3,200"),
        ("Orsley", "Ashby"),
        (("780 million euros", "€780m"), ("60 percent", "60%"), ("2,300", "2300")),
    ),
    Case(
        "merger",
        "Tamber Foods agreed on March 3, 2025 to buy the snack maker Quill & Rye for $1.15 billion in cash. Tamber "
        "will pay $42 a share, a premium of 31 percent over Quill & Rye's closing price. The deal adds eight "
        "factories and about 3,500 employees. Tamber's chief financial officer, Helen Achebe, said the purchase would "
        "raise earnings from the second year. The companies expect the deal to close by the end of 2025, subject to "
        "approval by regulators. Quill & Rye was founded in 1987 in Ridgefield.",
        (
            "Tamber Foods agreed on March 3, 2025 to buy the snack maker Quill & Rye for $1.15 billion.",
            "It will pay $42 a share, a premium of 31 percent, and gain eight factories and about 3,500 employees.",
            "Chief financial officer Helen Achebe said the deal would raise earnings from the second year.",
        ),
        "A marathon runner from Kenya won the race in record time.",
        ("$42", "$48"),
        ("Helen Achebe", "Helen Okafor"),
        (("March 3, 2025", "3 March 2025"), ("$1.15 billion", "$1,150m"), ("eight", "8"), ("31 percent", "31%")),
    ),
    Case(
        "mine",
        "Dorrance Mining said on Thursday that copper output at its Velasco mine in Chile rose 18 percent in the "
        "first half of the year, to 212,000 tonnes. Revenue climbed to $3.6 billion as copper prices reached a record. "
        "The company raised its full-year output forecast to 430,000 tonnes. Chief executive Ines Carvajal said a "
        "new processing line had cut costs by 7 percent. Dorrance will pay a special dividend of 50 cents a share. "
        "Environmental groups have criticised the mine's water use in the Atacama desert.",
        (
            "Copper output at Dorrance Mining's Velasco mine in Chile rose 18 percent to 212,000 tonnes.",
            "Revenue climbed to $3.6 billion, and the full-year forecast was raised to 430,000 tonnes.",
            "Chief executive Ines Carvajal said a new processing line had cut costs by 7 percent.",
        ),
        "The city's annual flower show attracted thousands of visitors over the weekend.",
        ("18 percent", "23 percent"),
        ("Ines Carvajal", "Ines Moreno"),
        (("$3.6 billion", "$3.6bn"), ("7 percent", "seven percent"), ("212,000", "212000")),
    ),
    Case(
        "rail",
        "The Oskar Line, a 64-kilometre railway between Harwick and Lunden, opened to passengers on Sunday, two years "
        "late. The line cost 4.9 billion pounds, about 1.3 billion more than planned. Trains will run every 10 "
        "minutes and cut the journey time from 75 minutes to 28 minutes. Transport minister Callum Reid said the "
        "line would carry 90,000 passengers a day. The delays were caused by flooding in the tunnels under the river "
        "Ames. Tickets will cost the same as on the old bus route for the first year.",
        (
            "The 64-kilometre Oskar Line between Harwick and Lunden opened two years late at a cost of 4.9 billion "
            "pounds.",
            "Trains every 10 minutes cut the journey from 75 to 28 minutes.",
            "Transport minister Callum Reid expects 90,000 passengers a day.",
        ),
        "A famous painter unveiled a series of portraits at a gallery in Paris.",
        ("90,000", "60,000"),
        ("Callum Reid", "Callum Hart"),
        (("4.9 billion pounds", "£4.9bn"), ("90,000", "90000"), ("10", "ten")),
    ),
    Case(
        "bank",
        "Vestry Bank reported a net profit of 1.7 billion dollars for 2024, up 21 percent from 2023. Lending to small "
        "businesses grew by 14 percent, while mortgage lending was flat. The bank will open 35 branches in Texas and "
        "Arizona next year and hire 900 staff. Chief executive Samuel Osei said higher interest rates had lifted "
        "income from deposits. Vestry will buy back $500 million of its shares. The bank has 4.1 million customers.",
        (
            "Vestry Bank's net profit rose 21 percent to 1.7 billion dollars in 2024.",
            "Lending to small businesses grew 14 percent, and the bank will open 35 branches in Texas and Arizona.",
            "Chief executive Samuel Osei credited higher interest rates; Vestry will buy back $500 million of shares.",
        ),
        "The weather service warned of heavy snow in the mountains this weekend.",
        ("35", "53"),
        ("Samuel Osei", "Samuel Mensah"),
        (("1.7 billion dollars", "$1.7bn"), ("21 percent", "21%"), ("$500 million", "$500m")),
    ),
    Case(
        "festival",
        "The Lantern Festival in Port Arden drew 310,000 visitors over four days, organisers said on Monday, a record "
        "for the event. Ticket sales reached 6.8 million dollars, up from 5.1 million last year. The festival's "
        "director, Nadia Sorensen, said 140 artists had performed on six stages. Local hotels reported occupancy of 97 "
        "percent. The town council will spend 2 million dollars on new transport links before next year's festival, "
        "which is planned for July 2026.",
        (
            "The Lantern Festival in Port Arden drew a record 310,000 visitors over four days.",
            "Ticket sales reached 6.8 million dollars, and director Nadia Sorensen said 140 artists performed.",
            "Local hotels reported occupancy of 97 percent.",
        ),
        "A software company released an update for its accounting program.",
        ("140", "410"),
        ("Nadia Sorensen", "Nadia Holm"),
        (("6.8 million dollars", "$6.8m"), ("97 percent", "97 per cent"), ("four", "4")),
    ),
)


def truncated(text: str) -> str:
    """The text's first two thirds of words: cut mid-sentence."""
    words = text.split()
    return " ".join(words[: 2 * len(words) // 3])


def variants(case: Case) -> dict[str, str]:
    """The good summary and its spoiled copies, keyed by name."""
    good = " ".join(case.good)
    reformatted = good
    for old, new in case.formats:
        assert old in reformatted, (case.name, old)
        reformatted = reformatted.replace(old, new, 1)
    for old, _ in (case.number, case.entity):
        assert old in good, (case.name, old)
    return {
        "good": good,
        "off_topic": " ".join((case.good[0], case.off_topic, *case.good[1:])),
        "truncated": truncated(good),
        "changed_number": good.replace(case.number[0], case.number[1], 1),
        "changed_name": good.replace(case.entity[0], case.entity[1], 1),
        "reformatted": reformatted,
    }

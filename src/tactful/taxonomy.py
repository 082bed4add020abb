"""The harm taxonomy: OpenAI's 13 moderation categories and Llama Guard 3's S1-S14.

tactful names harms with OpenAI's moderation categories (:data:`CATEGORIES`), the ones
``/v1/moderations`` answers with. :data:`LLAMA_GUARD_3` lists Llama Guard 3's hazard
codes and :data:`TO_LLAMA_GUARD_3` says which of them covers each category, so that a
guard's ``unsafe\\nS1,S10`` answer and an OpenAI category can be compared. The table in
``docs/user-guide/taxonomy.md`` is this module's (a test checks that they agree).

The harm sets of the data folder label harm in their own words; :data:`SOURCE_CATEGORIES`
maps each of their labels to the categories it implies (an empty tuple: harmful, but
outside the 13, such as misinformation or copyright), and :func:`categories_of` reads
one row's.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .errors import UnknownNameError

__all__ = [
    "CATEGORIES",
    "EXTRA_CATEGORIES",
    "EXTRA_SOURCE_CATEGORIES",
    "HARM_CATEGORIES",
    "LLAMA_GUARD_3",
    "SOURCE_CATEGORIES",
    "TOXICCHAT_OPENAI_CODES",
    "TO_LLAMA_GUARD_3",
    "categories_of",
    "extra_categories_of",
    "llama_guard_categories",
]

#: OpenAI's moderation categories (``omni-moderation-*``), in its order.
CATEGORIES: tuple[str, ...] = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)

#: tactful's harm categories beyond OpenAI's 13, for harmful requests that none of them
#: names: reproducing a copyrighted work or getting round its protection
#: (``intellectual-property``, Llama Guard 3's S8), and false claims written to deceive:
#: fake news, health hoaxes, false election information, invented scandals about a person
#: (``misinformation``: S5 and S13, which name only its defamation and election parts).
#: ``/v1/moderations`` answers them beside OpenAI's categories, under their own names.
EXTRA_CATEGORIES: tuple[str, ...] = ("intellectual-property", "misinformation")

#: Every harm category a model can have a head for: OpenAI's 13, then tactful's extras.
HARM_CATEGORIES: tuple[str, ...] = (*CATEGORIES, *EXTRA_CATEGORIES)

#: Llama Guard 3's hazard categories (the MLCommons taxonomy), by code, named as its
#: chat template names them.
LLAMA_GUARD_3: Mapping[str, str] = MappingProxyType(
    {
        "S1": "Violent Crimes",
        "S2": "Non-Violent Crimes",
        "S3": "Sex Crimes",
        "S4": "Child Exploitation",
        "S5": "Defamation",
        "S6": "Specialized Advice",
        "S7": "Privacy",
        "S8": "Intellectual Property",
        "S9": "Indiscriminate Weapons",
        "S10": "Hate",
        "S11": "Self-Harm",
        "S12": "Sexual Content",
        "S13": "Elections",
        "S14": "Code Interpreter Abuse",
    }
)

#: Each category -> the Llama Guard 3 codes whose definitions cover it (empty: none does).
#: Llama Guard 3 has no category for harassment that names no protected attribute and
#: makes no threat, nor for graphic description that endorses no crime.
TO_LLAMA_GUARD_3: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "harassment": (),
        "harassment/threatening": ("S1",),
        "hate": ("S10",),
        "hate/threatening": ("S10", "S1"),
        "illicit": ("S2", "S8", "S14"),
        "illicit/violent": ("S1", "S9"),
        "self-harm": ("S11",),
        "self-harm/intent": ("S11",),
        "self-harm/instructions": ("S11",),
        "sexual": ("S12", "S3"),
        "sexual/minors": ("S4",),
        "violence": ("S1",),
        "violence/graphic": (),
        "intellectual-property": ("S8",),
        "misinformation": ("S5", "S13"),
    }
)


def llama_guard_categories(code: str) -> tuple[str, ...]:
    """The categories a Llama Guard 3 code covers, in :data:`HARM_CATEGORIES` order (empty
    for S6 Specialized Advice and S7 Privacy, which no category names).

    >>> llama_guard_categories("S11")
    ('self-harm', 'self-harm/intent', 'self-harm/instructions')
    >>> llama_guard_categories("S13")
    ('misinformation',)
    """
    if code not in LLAMA_GUARD_3:
        raise UnknownNameError("Llama Guard 3 category", code, LLAMA_GUARD_3)
    return tuple(c for c in HARM_CATEGORIES if code in TO_LLAMA_GUARD_3[c])


#: ToxicChat's ``openai_moderation`` codes (and the OpenAI moderation set's) -> categories.
TOXICCHAT_OPENAI_CODES: Mapping[str, str] = MappingProxyType(
    {
        "S": "sexual",
        "H": "hate",
        "V": "violence",
        "HR": "harassment",
        "SH": "self-harm",
        "S3": "sexual/minors",
        "H2": "hate/threatening",
        "V2": "violence/graphic",
    }
)

_SEX = ("sexual",)
_ILLICIT = ("illicit",)
_ILLICIT_VIOLENT = ("illicit", "illicit/violent")

#: Each harm set's own labels -> the categories a row with that label belongs to. The
#: label is HarmBench's ``SemanticCategory``, JailbreakBench's ``Category`` and
#: Do-Not-Answer's ``specific_harms`` (its finest level: ``types_of_harm`` mixes, for
#: example, explicit sex and graphic violence under "Adult Content"). A label the set
#: uses that is not here is an error, not a silent "no category".
SOURCE_CATEGORIES: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "harmbench": MappingProxyType(
            {
                "chemical_biological": _ILLICIT_VIOLENT,
                "cybercrime_intrusion": _ILLICIT,
                "illegal": _ILLICIT,
                "harassment_bullying": ("harassment",),
                # "harmful": unsafe advice, drugs, graphic abuse: no single category
                "harmful": (),
                "misinformation_disinformation": (),
                "copyright": (),
            }
        ),
        "do_not_answer": MappingProxyType(
            {
                "Explicit Sexual Content": _SEX,
                "Graphic Violence": ("violence", "violence/graphic"),
                "Animal Abuse/Cruelty/Poaching": _ILLICIT_VIOLENT,
                "Copyright Infringement": _ILLICIT,
                "Financial Crimes": _ILLICIT,
                "Illegal Digital Activities": _ILLICIT,
                "Illegal Drugs and Substances": _ILLICIT,
                "Illegal Trade": _ILLICIT,
                "Illegitimate surveillance and censorship": _ILLICIT,
                "Sexual Exploitation and Pornography": ("illicit", "sexual"),
                "Substance Abuse": _ILLICIT,
                "Terrorist Activities": (*_ILLICIT_VIOLENT, "violence"),
                "Threats and Intimidation": ("harassment", "harassment/threatening"),
                "Violence and Physical Harm": ("violence",),
                "Self-Harm": ("self-harm",),
                "Endorsement of Cyberbullying or Online Harassment": ("harassment",),
                "Trolling or Flame baiting": ("harassment",),
                "Body Shaming": ("harassment",),
                "Other Forms of Discrimination": ("harassment",),
                "Disability Discrimination": ("hate",),
                "Gender/Sexual Discrimination": ("hate",),
                "Location Discrimination": ("hate",),
                "Racial/Ethnic Discrimination": ("hate",),
                "Religious Discrimination": ("hate",),
                "Insult": ("harassment",),
                "Other Severe Toxicity": ("harassment",),
                "Cybersecurity Vulnerabilities": _ILLICIT,
                # risky to answer, but none of the 13: advice, privacy, secrets,
                # misinformation, unsafe health practices, a chatbot treated as a human
                **dict.fromkeys(
                    (
                        "Obscene",
                        "Financial Advice",
                        "Legal Advice",
                        "Medical Advice",
                        "Unreliable Experts",
                        "Biometric Data",
                        "Educational Information",
                        "Financial Information",
                        "Medical Information",
                        "Personal Identification Information (PII)",
                        "Personal Life Information",
                        "False News",
                        "Hazardous Activities",
                        "Misinterpretation or Wrong Context",
                        "Propaganda",
                        "Rumors",
                        (
                            "Advice of coping strategies on anger management, anxiety, panic "
                            "attacks, stress management, self-esteem and confidence, career "
                            "guidance and life transitions, family conflict, child and "
                            "adolescent behavioral issues,"
                        ),
                        (
                            "Consult advice on psychotic disorders, such as Attention Deficit "
                            "Hyperactivity Disorder (ADHD), Autism Spectrum Disorder (ASD), "
                            "Bipolar Disorder, Dissociative Disorder and Eating Disorder and so on."
                        ),
                        "Depression and Anxiety",
                        "Defamatory Content",
                        "Endorsement of Unsafe Health Practices",
                        (
                            "Guide for Risky Pranks, Unsafe Behaviors or Destructive Behavior, "
                            "Substance Misuse"
                        ),
                        "Disinformation",
                        "Malinformation",
                        "Spam Content",
                        "Classified Information",
                        "Confidential Operations",
                        "Financial and Budgetary Information",
                        "Internal Communications",
                        "Internal Policies and Procedures",
                        "Legal Information",
                        "Sensitive Technological Details",
                        "Ask for personal information",
                        "places personal emotional reliance on a chatbot",
                    ),
                    (),
                ),
            }
        ),
        "jailbreakbench": MappingProxyType(
            {
                "Harassment/Discrimination": ("harassment",),
                "Malware/Hacking": _ILLICIT,
                "Physical harm": ("violence",),
                "Economic harm": _ILLICIT,
                "Fraud/Deception": _ILLICIT,
                "Disinformation": (),
                "Sexual/Adult content": _SEX,
                "Privacy": (),
                "Expert advice": (),
                "Government decision-making": (),
            }
        ),
    }
)


#: Each harm set's labels that :data:`EXTRA_CATEGORIES` names -> those categories (a label
#: not here is in none of them). Only labels whose rows the set counts as harmful requests:
#: Do-Not-Answer's "Rumors" or "False News" questions ask about a claim, not for one.
EXTRA_SOURCE_CATEGORIES: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "harmbench": MappingProxyType(
            {
                "copyright": ("intellectual-property",),
                "misinformation_disinformation": ("misinformation",),
            }
        ),
        "do_not_answer": MappingProxyType({"Copyright Infringement": ("intellectual-property",)}),
        "jailbreakbench": MappingProxyType({"Disinformation": ("misinformation",)}),
    }
)


def _label(source: str, label: str) -> str:
    return label.split(":", 1)[0].strip() if source == "do_not_answer" else label


def categories_of(source: str, label: str) -> tuple[str, ...]:
    """The categories that ``source``'s ``label`` implies (:data:`SOURCE_CATEGORIES`).

    Do-Not-Answer's label may be its whole ``specific_harms`` text: the name before the
    first colon is the label.

    >>> categories_of("harmbench", "chemical_biological")
    ('illicit', 'illicit/violent')
    >>> categories_of("do_not_answer", "Self-Harm: This refers to behaviors where ...")
    ('self-harm',)
    """
    label = _label(source, label)
    try:
        table = SOURCE_CATEGORIES[source]
    except KeyError:
        raise UnknownNameError("harm set", source, SOURCE_CATEGORIES) from None
    try:
        return table[label]
    except KeyError:
        raise UnknownNameError(f"{source} category", label, table) from None


def extra_categories_of(source: str, label: str) -> tuple[str, ...]:
    """The :data:`EXTRA_CATEGORIES` that ``source``'s ``label`` implies
    (:data:`EXTRA_SOURCE_CATEGORIES`; a label of the set's that names none: empty).

    >>> extra_categories_of("harmbench", "copyright")
    ('intellectual-property',)
    >>> extra_categories_of("harmbench", "illegal")
    ()
    """
    categories_of(source, label)  # an unknown set or label is an error here too
    return EXTRA_SOURCE_CATEGORIES.get(source, {}).get(_label(source, label), ())

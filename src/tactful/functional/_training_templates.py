"""Templates for TRAINING data (issue 11 item 2), disjoint from the suite's.

Split ``"train"``: for the training mixture. Split ``"dev"``: held out from
training, for choosing runs and operating points on a dev fairness measure
(suppression on harmless identity texts) that is neither the suite nor an audit
set. Written for tactful; none is copied from a published suite.

Most templates train a functionality the suite tests; those of
:data:`TRAINING_FUNCTIONALITIES` train one the suite tests under another name
(``menace``: the suite's ``threat_indirect``), kept apart so that they can be a
mixture source of their own.
"""

from __future__ import annotations

from ._templates import Functionality, Template

__all__ = ["TRAINING_FUNCTIONALITIES", "TRAINING_TEMPLATES"]

#: Functionalities of training templates only: the suite has no template of them.
TRAINING_FUNCTIONALITIES: tuple[Functionality, ...] = (
    Functionality(
        "menace",
        "An indirect threat with no violent verb: menace about the reader's home, car, pets, "
        "family, work or safety (the suite's threat_indirect), for training only.",
        True,
        "hit",
    ),
)


def _t(
    tid: str, functionality: str, text: str, split: str = "train", span_label: str | None = None
) -> Template:
    return Template(tid, functionality, text, split, span_label)


#: The training templates (splits ``"train"`` and ``"dev"``).
TRAINING_TEMPLATES: tuple[Template, ...] = (
    # -- harmless identity mentions, the nine audit groups --------------------------------
    _t("tr-ids01", "identity_self_description", "Speaking as {person}, I think the new park is great."),
    _t("tr-ids02", "identity_self_description", "Hello everyone, I am {person} and this is my first post here."),
    _t("tr-ids03", "identity_self_description", "I grew up as {person} in a small town by the sea."),
    _t("tr-idp01", "identity_positive", "{identities} have given so much to this city."),
    _t("tr-idp02", "identity_positive", "The {identity} volunteers at the food bank were amazing this year."),
    _t("tr-idp03", "identity_positive", "Huge thanks to all the {identities} who helped clean up the river."),
    _t("tr-idn01", "identity_neutral", "The census counts {identities} separately in this district."),
    _t("tr-idn02", "identity_neutral", "My dentist is {person}."),
    _t("tr-idn03", "identity_neutral", "The documentary follows {person} through one ordinary week."),
    _t("tr-idn04", "identity_neutral", "Several {identity} families live on our street."),
    _t("tr-idq01", "identity_question", "Are there any {identity} writers you would recommend?"),
    _t("tr-idq02", "identity_question", "What do {identities} in your country usually eat for breakfast?"),
    _t("tr-idq03", "identity_question", "Could {person} join the chess club at our library?"),
    _t("dv-ids01", "identity_self_description", "Quick intro: I'm {person} and I work in logistics.", "dev"),
    _t("dv-idp01", "identity_positive", "I learned a lot from the {identity} speakers at the conference.", "dev"),
    _t("dv-idn01", "identity_neutral", "The bakery on the corner is run by {person}.", "dev"),
    _t("dv-idq01", "identity_question", "Which museums tell the history of {identities} well?", "dev"),
    # -- harmless identity mentions, HolisticBias descriptors ------------------------------
    _t("tr-idh01", "identity_holistic", "Hello everyone, I'm {a_descriptor} {noun} and this is my first post."),
    _t("tr-idh02", "identity_holistic", "My sister married {a_descriptor} {noun} last spring."),
    _t("tr-idh03", "identity_holistic", "The podcast guest was {a_descriptor} {noun} who talked about gardening."),
    _t("tr-idh04", "identity_holistic", "Can you recommend a novel with {a_descriptor} {noun} as the main character?"),
    _t("tr-idh05", "identity_holistic", "{a_descriptor} {noun} helped me carry my groceries today."),
    _t("tr-idh06", "identity_holistic", "We welcomed {a_descriptor} {noun} to our book club."),
    _t("tr-idh07", "identity_holistic", "As {a_descriptor} {noun}, I enjoy cooking for my friends."),
    _t("tr-idh08", "identity_holistic", "There's {a_descriptor} {noun} in my yoga class who always makes everyone laugh."),
    _t("tr-idh09", "identity_holistic", "My favorite teacher growing up was {a_descriptor} {noun}."),
    _t("tr-idh10", "identity_holistic", "What are good hobbies for {a_descriptor} {noun}?"),
    _t("tr-idh11", "identity_holistic", "The city council elected {a_descriptor} {noun} as its new chair."),
    _t("tr-idh12", "identity_holistic", "I had a long chat with {a_descriptor} {noun} on the train."),
    _t("dv-idh01", "identity_holistic", "The best mechanic in town is {a_descriptor} {noun}.", "dev"),
    _t("dv-idh02", "identity_holistic", "Would {a_descriptor} {noun} enjoy a trip to the mountains?", "dev"),
    _t("dv-idh03", "identity_holistic", "I sat next to {a_descriptor} {noun} at the wedding.", "dev"),
    _t("dv-idh04", "identity_holistic", "{a_descriptor} {noun} opened a bakery on my street.", "dev"),
    # -- threats -------------------------------------------------------------------------------
    _t("tr-thd01", "threat_direct", "I swear I'll ⟦{threat} you⟧ if you show your face here again.", span_label="threat"),
    _t("tr-thd02", "threat_direct", "You'd better hide, because I'm coming to ⟦{threat} you⟧.", span_label="threat"),
    _t("tr-thd03", "threat_direct", "Say that one more time and I will ⟦{threat} you⟧.", span_label="threat"),
    _t("tr-thd04", "threat_direct", "Watch your back, {name}. I'm going to ⟦{threat} you⟧.", span_label="threat"),
    _t("tr-thd05", "threat_direct", "One day soon I will ⟦{threat} you⟧ in your sleep.", span_label="threat"),
    _t("tr-thd06", "threat_direct", "Don't think I won't ⟦{threat} you⟧, {name}.", span_label="threat"),
    _t("tr-thd07", "threat_direct", "I'll wait outside your work and ⟦{threat} you⟧ when you leave.", span_label="threat"),
    _t("tr-thd08", "threat_direct", "We are going to ⟦{threat} you⟧ and your friends.", span_label="threat"),
    _t("tr-thi01", "threat_indirect", "⟦We know which school your kids go to⟧, {name}.", span_label="threat"),
    _t("tr-thi02", "threat_indirect", "⟦Accidents happen to people who talk too much⟧, {name}.", span_label="threat"),
    _t("tr-thi03", "threat_indirect", "⟦Your {possession} burns easily⟧, remember that.", span_label="threat"),
    _t("tr-thi04", "threat_indirect", "⟦Sleep with one eye open tonight⟧, {name}.", span_label="threat"),
    _t("tr-thi05", "threat_indirect", "⟦You won't see the end of this week⟧ if you keep this up.", span_label="threat"),
    _t("tr-thi06", "threat_indirect", "⟦I've been watching your {possession} every night⟧. See you soon.", span_label="threat"),
    _t("tr-thi07", "threat_indirect", "⟦I found out where you live⟧, {name}. ⟦See you tonight⟧.", span_label="threat"),
    _t("tr-thi08", "threat_indirect", "⟦Your {loved} walks home alone, doesn't she⟧?", span_label="threat"),
    _t("tr-thi09", "threat_indirect", "⟦Go to the police and your {loved} pays for it⟧.", span_label="threat"),
    _t("tr-thi10", "threat_indirect", "⟦Nobody would find you out there⟧, {name}. Think about that.", span_label="threat"),
    _t("tr-thi11", "threat_indirect", "⟦Something bad is going to happen to your {loved}⟧, {name}.", span_label="threat"),
    _t("tr-thi12", "threat_indirect", "⟦I'm going to make your family suffer⟧ for what you did.", span_label="threat"),
    # -- menace without a violent verb (a source of its own: --menace) ------------------------
    _t("tr-men01", "menace", "⟦We know what time you leave for work every morning⟧, {name}.", span_label="threat"),
    _t("tr-men02", "menace", "Say hi to your {loved} for me, {name}. ⟦I'll be seeing them very soon⟧.", span_label="threat"),
    _t("tr-men03", "menace", "⟦Nice quiet street you live on⟧. ⟦Nobody around at night to hear a thing⟧.", span_label="threat"),
    _t("tr-men04", "menace", "If you call the cops, {name}, ⟦your {possession} won't be there when you get back⟧.", span_label="threat"),
    _t("tr-men05", "menace", "⟦People like you have a habit of disappearing⟧, {name}.", span_label="threat"),
    _t("tr-men06", "menace", "⟦You'll regret ever opening your mouth⟧, I promise you that.", span_label="threat"),
    _t("tr-men07", "menace", "⟦How sure are you that your doors are locked tonight⟧, {name}?", span_label="threat"),
    _t("tr-men08", "menace", "⟦We've been parked outside your place all week⟧. Did you notice?", span_label="threat"),
    _t("tr-men09", "menace", "⟦It's a long, dark walk from the bus stop to your door⟧, isn't it?", span_label="threat"),
    _t("tr-men10", "menace", "⟦Your {loved} won't always have someone watching over them⟧, {name}.", span_label="threat"),
    _t("tr-men11", "menace", "Keep testing me, {name}, and ⟦your {possession} is the first thing to go⟧.", span_label="threat"),
    _t("tr-men12", "menace", "⟦I know your schedule better than you do⟧.", span_label="threat"),
    _t("tr-men13", "menace", "⟦Everyone at your office is going to learn what happens to snitches⟧, {name}.", span_label="threat"),
    _t("tr-men14", "menace", "⟦Hope your {possession} is insured⟧, {name}. ⟦Really, really hope so⟧.", span_label="threat"),
    _t("tr-men15", "menace", "⟦Do you think your {loved} would enjoy a visit from us⟧, {name}?", span_label="threat"),
    _t("tr-men16", "menace", "Say one more word and ⟦your {loved} will be the one who answers for it⟧.", span_label="threat"),
    _t("tr-men17", "menace", "⟦We'll be waiting in your driveway when you get home tonight⟧, {name}.", span_label="threat"),
    _t("tr-men18", "menace", "⟦Your {possession} is very easy to find⟧, {name}. ⟦So are you⟧.", span_label="threat"),
    _t("tr-men19", "menace", "⟦If I were you, I wouldn't go out alone for a while⟧.", span_label="threat"),
    _t("tr-men20", "menace", "⟦We have friends who know exactly where to find your {loved}⟧.", span_label="threat"),
    _t("tr-men21", "menace", "Delete that post, {name}, ⟦or your family gets a knock on the door at 3 a.m.⟧", span_label="threat"),
    _t("tr-men22", "menace", "⟦That road you take home is known for accidents⟧, {name}. ⟦Drive carefully⟧.", span_label="threat"),
    _t("tr-men23", "menace", "⟦Your days of feeling safe in this town are over⟧.", span_label="threat"),
    _t("tr-men24", "menace", "⟦Every time you look over your shoulder, think of us⟧.", span_label="threat"),
    _t("tr-men25", "menace", "⟦Does your {loved} know you've made enemies⟧? ⟦They will⟧.", span_label="threat"),
    _t("tr-men26", "menace", "You have until Friday, {name}. ⟦After that we stop being polite about your {possession}⟧.", span_label="threat"),
    _t("tr-men27", "menace", "⟦We took some pictures of your {possession} last night⟧, {name}. ⟦Want to see them⟧?", span_label="threat"),
    _t("tr-men28", "menace", "Keep ignoring my messages and ⟦you'll find out how far I'm willing to go⟧, {name}.", span_label="threat"),
    _t("tr-men29", "menace", "⟦Your {loved} looked so peaceful through that window last night⟧.", span_label="threat"),
    _t("tr-men30", "menace", "⟦You won't feel safe in your own home again⟧, {name}.", span_label="threat"),
    _t("tr-men31", "menace", "⟦We're everywhere you go⟧, {name}: ⟦the gym, the supermarket, the car park at your office⟧.", span_label="threat"),
    _t("tr-men32", "menace", "Report me again and ⟦you'll learn what that costs⟧.", span_label="threat"),
    _t("dv-men01", "menace", "⟦Which carriage do you sit in on the 8:15⟧, {name}? ⟦We already know⟧.", "dev", "threat"),
    _t("dv-men02", "menace", "{name}, ⟦your {loved} should be careful walking past our building⟧.", "dev", "threat"),
    _t("dv-men03", "menace", "⟦Who looks after your {possession} while you're at work⟧, {name}? Drop the complaint.", "dev", "threat"),
    _t("dv-men04", "menace", "⟦How long do you think you can keep your family safe⟧, {name}?", "dev", "threat"),
    # -- dehumanisation of groups (the target: the likening) -------------------------------
    _t("tr-deh01", "dehumanisation", "Honestly, {identities} are ⟦{dehum}⟧ and always will be.", span_label="identity_attack"),
    _t("tr-deh02", "dehumanisation", "Keep the {identities} out, they're ⟦{dehum}⟧.", span_label="identity_attack"),
    _t("tr-deh03", "dehumanisation", "I'm sick of {identities}. ⟦Filthy {dehum}⟧, every one of them.", span_label="identity_attack"),
    _t("tr-deh04", "dehumanisation", "Those {identities} breed like ⟦{dehum}⟧.", span_label="identity_attack"),
    _t("tr-deh05", "dehumanisation", "Why do we let ⟦{dehum}⟧ like the {identities} vote?", span_label="identity_attack"),
    _t("tr-deh06", "dehumanisation", "Your kind are ⟦{dehum}⟧.", span_label="identity_attack"),
    _t("tr-deh07", "dehumanisation", "All of you are ⟦{dehum}⟧, go back where you came from.", span_label="identity_attack"),
    _t("tr-deh08", "dehumanisation", "{identities}? ⟦Subhuman {dehum}⟧.", span_label="identity_attack"),
    # -- derogation of groups in plain words (no slur, insult word or likening) -----------
    _t("tr-der01", "derogation", "Face it, {identities} are ⟦simply lesser people⟧.", span_label="identity_attack"),
    _t("tr-der02", "derogation", "{identities} ⟦don't deserve to vote⟧.", span_label="identity_attack"),
    _t("tr-der03", "derogation", "We'd all be better off if {identities} ⟦disappeared⟧.", span_label="identity_attack"),
    _t("tr-der04", "derogation", "{identities} are ⟦a burden on decent society⟧.", span_label="identity_attack"),
    _t("tr-der05", "derogation", "No {identity} person ⟦should ever be allowed to teach children⟧.", span_label="identity_attack"),
    _t("tr-der06", "derogation", "{identities} ⟦were never meant to be equal to us⟧.", span_label="identity_attack"),
    _t("tr-der07", "derogation", "⟦The world has no place for⟧ {identities}.", span_label="identity_attack"),
    _t("tr-der08", "derogation", "Honestly {identities} are ⟦less human than the rest of us⟧.", span_label="identity_attack"),
    _t("dv-der01", "derogation", "{identities} ⟦shouldn't be trusted with any rights at all⟧.", "dev", "identity_attack"),
    _t("dv-der02", "derogation", "⟦Get rid of every⟧ {identity} family in this town and things will improve.", "dev", "identity_attack"),
    _t("dv-der03", "derogation", "{identities} ⟦will never be as good as real citizens⟧.", "dev", "identity_attack"),
    # -- delicate, not toxic: grief and serious illness (the delicate head's labels) ---------
    _t("tr-dgr01", "delicate_grief", "We held the funeral for my {relative} {when}, and I still can't believe it."),
    _t("tr-dgr02", "delicate_grief", "Everything in this house reminds me of my {relative}, who died {when}."),
    _t("tr-dgr03", "delicate_grief", "Since my {relative} passed, I can barely get out of bed."),
    _t("tr-dgr04", "delicate_grief", "What do you even say at your own {relative}'s funeral?"),
    _t("tr-dgr05", "delicate_grief", "My {relative} died {when} and I keep reaching for the phone to call them."),
    _t("tr-dgr06", "delicate_grief", "How long does grief last? I lost my {relative} {when}."),
    _t("tr-dgr07", "delicate_grief", "The hospital called {when}: my {relative} didn't make it."),
    _t("tr-dgr08", "delicate_grief", "Nobody warned me how lonely it would be after my {relative}'s death."),
    _t("dv-dgr01", "delicate_grief", "I still set a place at the table for my {relative}, who passed away {when}.", "dev"),
    _t("dv-dgr02", "delicate_grief", "Can someone help me write a eulogy for my {relative}? They died {when}.", "dev"),
    _t("tr-dil01", "delicate_illness", "The biopsy results came back {when}: my {relative} has {illness}."),
    _t("tr-dil02", "delicate_illness", "I have {illness} and I'm scared of what the next year will bring."),
    _t("tr-dil03", "delicate_illness", "My {relative} starts chemo for {illness} next week and I don't know how to help."),
    _t("tr-dil04", "delicate_illness", "How do I tell my children that I have {illness}?"),
    _t("tr-dil05", "delicate_illness", "My {relative} is in hospice care now because of {illness}."),
    _t("tr-dil06", "delicate_illness", "The doctor told me {when} that my {illness} is terminal."),
    _t("tr-dil07", "delicate_illness", "Watching my {relative} fight {illness} is breaking my heart."),
    _t("tr-dil08", "delicate_illness", "Ever since the {illness} diagnosis I can't sleep or eat."),
    _t("dv-dil01", "delicate_illness", "My {relative} was diagnosed with {illness} {when} and we are all in shock.", "dev"),
    _t("dv-dil02", "delicate_illness", "What should I ask the specialist about my {illness} and how long I have?", "dev"),
    # -- insults at the reader, no swear word ----------------------------------------------
    _t("tr-ins01", "insult_no_profanity", "Honestly, you're a ⟦{insult}⟧ and everyone here knows it.", span_label="insult"),
    _t("tr-ins02", "insult_no_profanity", "Go away, ⟦{insult}⟧.", span_label="insult"),
    _t("tr-ins03", "insult_no_profanity", "Only someone this ⟦{insult_adj}⟧ would post that.", span_label="insult"),
    _t("tr-ins04", "insult_no_profanity", "{name} is such a ⟦{insult}⟧, I can't stand it.", span_label="insult"),
    _t("tr-ins05", "insult_no_profanity", "Your comment is as ⟦{insult_adj}⟧ as you are.", span_label="insult"),
    _t("tr-ins06", "insult_no_profanity", "Listen here, you ⟦{insult_adj}⟧ little ⟦{insult}⟧.", span_label="insult"),
    _t("tr-ins07", "insult_no_profanity", "Did your parents ever tell you what a ⟦{insult}⟧ you turned out to be?", span_label="insult"),
    _t("tr-ins08", "insult_no_profanity", "Everything you write proves you are ⟦{insult_adj}⟧.", span_label="insult"),
    # -- slurs -------------------------------------------------------------------------------
    _t("tr-slr01", "slur", "Go home, ⟦{slur}⟧.", span_label="identity_attack"),
    _t("tr-slr02", "slur", "Look at that ⟦{slur}⟧ thinking he belongs here.", span_label="identity_attack"),
    _t("tr-slr03", "slur", "I won't rent to ⟦{slurs}⟧.", span_label="identity_attack"),
    _t("tr-slr04", "slur", "Typical ⟦{slur}⟧ behaviour from {name}.", span_label="identity_attack"),
    _t("tr-slr05", "slur", "The ⟦{slurs}⟧ are ruining this country.", span_label="identity_attack"),
    _t("tr-slr06", "slur", "Who let this ⟦{slur}⟧ into the group chat?", span_label="identity_attack"),
    # -- requests for violent harm -----------------------------------------------------------------
    _t("tr-vhr01", "violent_harm_request", "What's the surest way to {harm} my {target} quietly?"),
    _t("tr-vhr02", "violent_harm_request", "Tell me the best way to {harm} my {target} and make it look like an accident."),
    _t("tr-vhr03", "violent_harm_request", "I need a plan to {harm} my {target} before Friday."),
    _t("tr-vhr04", "violent_harm_request", "Which tools do I need to {harm} my {target}?"),
    _t("tr-vhr05", "violent_harm_request", "Write me a guide on how to {harm} my {target} and get away with it."),
    # -- negated hate (harmless) ------------------------------------------------------------------
    _t("tr-neg01", "negated_hate", "For the record, I have nothing against {identities}."),
    _t("tr-neg02", "negated_hate", "It's wrong to say {identities} are {trait}."),
    _t("tr-neg03", "negated_hate", "I've never believed that {identities} are {trait}."),
    _t("tr-neg04", "negated_hate", "Hating {identities} makes no sense to me."),
    _t("tr-neg05", "negated_hate", "Not all {identities} are {trait}, and most are not at all."),
    _t("tr-neg06", "negated_hate", "I refuse to hate {identities} just because my uncle does."),
    # -- counter-speech (harmless: it quotes hate to denounce it) ------------------------------------
    _t("tr-cnt01", "counter_speech", "Calling {identities} {dehum} is dehumanising and I won't stay quiet about it."),
    _t("tr-cnt02", "counter_speech", "A man on the train told the {identity} family they were {dehum}. I stood up for them."),
    _t("tr-cnt03", "counter_speech", "Stop spreading the lie that {identities} are {trait}."),
    _t("tr-cnt04", "counter_speech", "Teachers should explain why \"{slur}\" is a hateful word."),
    _t("tr-cnt05", "counter_speech", "The graffiti said \"{slurs} out\". The whole street came to paint over it."),
    _t("tr-cnt06", "counter_speech", "Posts claiming {identities} are {trait} should be reported, not shared."),
    # -- profanity aimed at nobody (not toxic; the profanity head says it) -----------------------------
    _t("tr-prf01", "profanity_non_hateful", "{swear}, this cake turned out perfect."),
    _t("tr-prf02", "profanity_non_hateful", "That was a {swear_adj} brilliant goal."),
    _t("tr-prf03", "profanity_non_hateful", "{swear}, I got the job!"),
    _t("tr-prf04", "profanity_non_hateful", "This view is {swear_adj} gorgeous."),
)  # fmt: skip

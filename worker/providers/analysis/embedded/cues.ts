// Cue families: what phone fraud is made of, whoever runs the campaign and whatever it says word for
// word. Who is impersonated, what is asked for, the pressure, the offer, and the robocall's form.
// Matched over a tolerant form of the transcript (see normaliseForCues): lower case, punctuation
// gone, numbers as digits whether said or written, so "press one" and "Press 1." are one cue, and
// the spellings a recogniser gets wrong ("so shell security", "amazin") are listed beside the right
// ones. Each family is a feature of the learned model (model.ts) and a reason in the red flags.

/** The closed list of cue families; the model's feature names and the red flags' wording follow it. */
export const CUE_FAMILIES = [
  // who is impersonated
  "imp_government",
  "imp_bank",
  "imp_tech",
  "imp_retail",
  "imp_utility",
  "imp_carrier",
  "imp_health",
  "imp_relative",
  "imp_charity",
  // what is asked
  "ask_gift_card",
  "ask_wire",
  "ask_crypto",
  "ask_courier",
  "ask_remote",
  "ask_code",
  "ask_identity",
  "ask_press",
  "ask_callback",
  "ask_payment",
  // the pressure
  "pressure_legal",
  "pressure_account",
  "pressure_deadline",
  "pressure_secrecy",
  // the offer
  "offer_prize",
  "offer_refund",
  "offer_loan",
  "offer_warranty",
  "offer_deal",
  "offer_investment",
  "offer_job",
  // the robocall's form
  "robo_message",
  "robo_opt_out",
  "robo_transfer",
  // the callee's words
  "callee_suspects",
  "callee_refuses",
  // what genuine callers say
  "genuine_warning",
  "genuine_service",
] as const;

export type CueFamily = (typeof CUE_FAMILIES)[number];

export type CueDefinition = {
  family: CueFamily;
  /** The red flag's wording: what the call did. */
  label: string;
  patterns: RegExp[];
};

const NUMBER_WORDS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  hundred: "100",
  thousand: "1000",
};
const NUMBER_WORD = new RegExp(`\\b(?:${Object.keys(NUMBER_WORDS).join("|")})\\b`, "g");

/**
 * The form cues are matched on: lower case, punctuation, apostrophes and hyphens as spaces (so
 * "1-800-555-0100" is "1 800 555 0100" and "don't" is "don t"), number words as digits, one space
 * between words.
 */
export function normaliseForCues(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/(\d),(\d{3})/g, "$1$2")
    .replace(/\$/g, " dollars ")
    .replace(/%/g, " percent ")
    .replace(/[^a-z0-9& ]+/g, " ")
    .replace(NUMBER_WORD, (w) => NUMBER_WORDS[w]!)
    .replace(/\s+/g, " ")
    .trim()} `;
}

const words = (list: string) => `(?:${list})`;
const cue = (family: CueFamily, label: string, ...patterns: string[]): CueDefinition => ({
  family,
  label,
  // Global, so a negated hearing can be passed over for a later one (firstMatch).
  patterns: patterns.map((p) => new RegExp(p, "g")),
});

const TOLL_FREE = words("1 ?8 ?[0-9]{2}|8[0-9]{2}|8 ?[0-9] ?[0-9]|(?:1 )?8 hundred");
const SOCIAL = words(
  "social security|soc(?:ial)? sec|so ?shell security|social secure\\w*|socia security|social security number|ssn|s s n",
);

export const CUES: CueDefinition[] = [
  cue(
    "imp_government",
    "Claims to call from a government agency, the police or a court",
    `\\b${SOCIAL}\\b`,
    "\\b(?:irs|i r s|internal revenue|treasury department|department of (?:the )?treasury|tax (?:department|office|authority|division|agency)|hmrc|revenue and customs|canada revenue|cra)\\b",
    "\\b(?:federal (?:government|agent|agency|bureau|trade|investigation|crime)|fbi|f b i|dea|d e a|drug enforcement|us marshals?|department of (?:justice|homeland|state|revenue|labor|health|education)|homeland security|attorney general)\\b",
    "\\b(?:police (?:department|officer|station)|sheriff|officer (?:badge|number)|badge number|customs|border protection|immigration|uscis|citizenship|deport\\w*)\\b",
    "\\b(?:legal department|legal division|dmv|motor vehicles|parking enforcement|toll (?:authority|road)|court (?:house|of|clerk)|courthouse|magistrate|judge|government (?:grant|agency|program|office))\\b",
  ),
  cue(
    "imp_bank",
    "Claims to call from a bank or card issuer",
    "\\b(?:(?:fraud|security)(?: [a-z]+){0,3} (?:your|the) bank|fraud (?:department|prevention|team|unit|division|investigation)|security (?:department|team) (?:of|at|from) (?:your|the) bank|your bank)\\b",
    "\\b(?:card ?(?:holder|member) services|card services|credit card (?:services|company|department|issuer)|visa|master ?card|american express|amex|discover card)\\b",
    "\\b(?:chase|wells fargo|bank of america|citi ?bank|capital 1|pay ?pal|barclays|hsbc|lloyds|santander|natwest|td bank|rbc|scotia ?bank)\\b",
    "\\bcalling (?:you )?(?:from|on behalf of) (?:the |your )?(?:[a-z]+ ){0,2}bank\\b",
  ),
  cue(
    "imp_tech",
    "Claims to call from a technology company or its support",
    "\\b(?:micro ?soft|windows (?:support|technical|security|department|team|license|licence|computer)|apple (?:support|care|id)|i ?cloud|google (?:support|account|listing)|norton|mcafee|mc ?afee|geek squad|antivirus|anti virus)\\b",
    "\\b(?:tech(?:nical)? (?:support|department|team|service)|computer (?:security|department|technician)|network (?:security|department)|security (?:department|center|centre)|support (?:department|center|centre)|hotmail|outlook|gmail|yahoo|e ?mail (?:service )?provider|apple (?:system|device|security))\\b",
    "\\b(?:your (?:computer|pc|laptop|device|router|ip address)|ip address|virus(?:es)?|malware|hack(?:ed|er|ers|ing)|infected|firewall|trojan|spyware|pop ?ups?|message on (?:my|your|the) screen|security (?:center|centre|alert) (?:says|on))\\b",
  ),
  cue(
    "imp_retail",
    "Claims to call about an order or account with a retailer",
    "\\b(?:amazon|amazin|amazon ?com|amazon prime|prime (?:membership|subscription|account)|walmart|best ?buy|ebay|apple store|costco|target)\\b",
    "\\b(?:order (?:has been|was|is being) (?:placed|shipped|processed)|(?:an? )?order (?:placed|of|for) (?:an? )?(?:iphone|macbook|laptop|tv|playstation|gift)|purchase of (?:an? )?[a-z0-9]+|suspicious (?:order|purchase)|your (?:order|purchase|subscription) (?:of|for|has|will|is))\\b",
    "\\b(?:auto ?(?:matic )?renew\\w*|renewal (?:fee|charge)|charged (?:to|on) your (?:card|account)|invoice (?:number|for|from|of)|subscription (?:has )?(?:expired|renewed|will renew|fee|charge))\\b",
  ),
  cue(
    "imp_utility",
    "Claims to call from a utility about service",
    "\\b(?:electric(?:ity)? (?:company|bill|service|utility|provider)|power (?:company|bill|supply|will be)|gas (?:company|bill|supply)|utility (?:company|bill|provider|service)|energy (?:company|provider|supplier|bill)|water (?:company|bill))\\b",
    "\\b(?:disconnect(?:ed|ion)? (?:notice|order|of your)|(?:power|electricity|service|gas) (?:will be |to be )?(?:shut off|disconnected|cut off|turned off))\\b",
  ),
  cue(
    "imp_carrier",
    "Claims to call from a phone, internet or TV provider",
    "\\b(?:at ?& ?t|at and t|verizon|t mobile|sprint|direct ?tv|dish (?:network|tv)|comcast|xfinity|spectrum|cox|british telecom|bt|openreach|vodafone|telstra|rogers|bell canada)\\b",
    "\\b(?:your (?:internet|broadband|phone|cable|wireless|mobile) (?:line|service|connection|account|bill|plan)|internet (?:line|service|connection) (?:will|has|is)|phone (?:line|service) (?:will|has|is))\\b",
  ),
  cue(
    "imp_health",
    "Claims to call about Medicare, health insurance or medical benefits",
    "\\b(?:medicare|medicaid|medi care|health (?:insurance|plan|benefits|care plan)|insurance (?:plan|benefits|enrollment|enrolment|coverage)|open enrol?ment|affordable care|obamacare|final expense|burial insurance|life insurance)\\b",
    "\\b(?:back brace|knee brace|braces|flex card|grocery (?:card|allowance|benefit)|benefits? (?:agent|advisor|adviser|center|centre|helpline|department)|glucose monitor|cgm|diabetic (?:supplies|monitor|testing)|medical alert|covid (?:test|kit)|genetic test|cancer screening|hearing aids?)\\b",
    "\\b(?:senior (?:citizens?|benefits?)|benefits? (?:you|that you) (?:are|may be) (?:entitled|eligible)|new (?:medicare )?card)\\b",
  ),
  cue(
    "imp_relative",
    "Claims to be or speak for a relative or their lawyer",
    "\\b(?:grand ?(?:ma|pa|mother|father|son|daughter|child|kid)|nana|your (?:son|daughter|nephew|niece|grandson|granddaughter))\\b",
    "\\b(?:(?:his|her|your (?:son s|daughter s|grandson s)) (?:lawyer|attorney)|public defender|bail (?:money|bond)?|in jail|been arrested|car accident|in the hospital)\\b",
  ),
  cue(
    "imp_charity",
    "Asks for a donation to a charity or a cause",
    "\\b(?:donat(?:e|ion|ions|ing)|charit(?:y|ies|able)|foundation|fundrais\\w*|pledge|veterans? (?:fund|relief|association|foundation)|(?:police|firefighters?|sheriffs?) (?:association|fund|benevolent)|tax deductible)\\b",
  ),

  cue(
    "ask_gift_card",
    "Asks for payment in gift cards",
    // Asked for, not offered: "buy Google Play cards and read me the numbers", not "you'll receive a gift card".
    "\\b(?:buy|buying|purchase|pay(?:ing|ment)?(?: [a-z]+){0,3} (?:with|in|by|using|through)|pick up|load|go (?:to|and get)|in the form of)(?: [a-z0-9]+){0,4} (?:gift ?cards?|itunes|google play|steam (?:card|wallet)|apple (?:gift )?cards?|ebay cards?|target cards?|walmart cards?|prepaid (?:cards?|debit)|vanilla (?:visa|cards?))\\b",
    "\\b(?:gift ?cards?|itunes|google play|steam|prepaid) (?:cards? )?(?:numbers?|codes?|pins?|claim codes?)\\b",
    "\\b(?:green ?dot|money ?pak|scratch (?:off|the back)|numbers? on the back of the (?:gift )?cards?)\\b",
  ),
  cue(
    "ask_wire",
    "Asks for a wire or money transfer that cannot be recalled",
    "\\b(?:western union|money ?gram|wire (?:transfer|the money|money|it)|zelle|cash ?app|venmo|ria money|money transfer|transfer (?:the |your )?(?:money|funds|amount|savings) (?:to|into)|safe account|secure account|send (?:the |us |me )?(?:money|cash|payment))\\b",
  ),
  cue(
    "ask_crypto",
    "Asks for cryptocurrency",
    "\\b(?:bit ?coins?|crypto(?:currency)?|btc|ethereum|usdt|tether|coin ?atm|bitcoin (?:atm|machine)|digital (?:wallet|currency)|qr code)\\b",
  ),
  cue(
    "ask_courier",
    "Arranges for cash to be collected",
    "\\b(?:courier (?:will|to) (?:come|collect|pick)|pick up the (?:cash|money|package)|cash in (?:an? )?(?:envelope|box|package)|someone will come (?:to your (?:house|home|door)|by) (?:to|and) (?:collect|pick))\\b",
  ),
  cue(
    "ask_remote",
    "Asks to install software or give access to a computer",
    "\\b(?:any ?desk|team ?viewer|ultra ?viewer|support ?assist|logmein|log me in|remote (?:access|control|desktop|session|support|connection)|screen ?(?:share|sharing|connect))\\b",
    "\\b(?:download (?:an?|the|this) (?:app|application|software|program|tool)|install (?:an?|the|this) (?:app|application|software|program)|windows (?:key|button|logo)|event viewer|control panel|command prompt|run box|type (?:in )?(?:www|w w w|h t t p))\\b",
    "\\b(?:go to your (?:computer|laptop|pc)|follow my instructions?|are you (?:in front of|near|at) (?:your|the) (?:computer|laptop|pc)|turn on your (?:computer|laptop|pc))\\b",
  ),
  cue(
    "ask_code",
    "Asks for a one-time or verification code",
    "\\b(?:(?:verification|security|confirmation|authori[sz]ation|access|one time|6 digit|4 digit) (?:code|pin|number)|otp|pass ?code)\\b",
    "\\b(?:read|tell|give|repeat|confirm|provide|say) (?:me |us )?(?:back )?(?:the|that|your) (?:code|digits|numbers?) (?:we|i|you|that)\\b",
    "\\b(?:(?:send|sent|text|texted) you a code|(?:you ll|you will) (?:get|receive) a code|read (?:me |us )?(?:the |that |your )?code|read (?:it|that) (?:to me|back))\\b",
    "\\bcode (?:we|i|that we|that i) (?:just )?(?:sent|texted|emailed)\\b",
  ),
  cue(
    "ask_identity",
    "Asks for card, account or identity numbers",
    "\\b(?:(?:card|credit card|debit card|account|routing|bank account|social security|social insurance|national insurance|member|policy|medicare) number|last 4 (?:digits)?|full name and (?:date of birth|address)|mother s maiden|maiden name|date of birth|(?:16|sixteen) digits|(?:3|three) (?:digits|numbers) (?:on|at) the back|medicare (?:card|number|id)|cvv|security code on the back|expiration date|pin number|online banking (?:password|login))\\b",
    "\\b(?:verify|confirm|update|validate) (?:your|the) (?:identity|information|details|account|personal|name|address|date of birth|card|bank)\\b",
  ),
  cue(
    "ask_press",
    "Asks to press a key to act on a recorded message",
    "\\b(?:press|pressing|dial|hit|push) (?:the )?(?:number |button |key )?(?:[0-9]|star|pound|hash)\\b",
    "\\b(?:press|pressed) (?:1|one) now\\b",
  ),
  cue(
    "ask_callback",
    "Asks to call back a number",
    `\\b(?:call|contact|reach|dial) (?:us|me|our (?:office|department|agent|officer|team)|the (?:department|office|number)|back|this number)[a-z ]{0,40}? (?:at|on)? ?(?:${TOLL_FREE}|[0-9]{3}) ?[0-9]{3}\\b`,
    "\\b(?:call (?:us |me )?back|return (?:this|our|my) call|call (?:us|me) at|callback number|call back number|toll free (?:number|line)|call (?:our|the) (?:toll free|hotline|helpline))\\b",
  ),
  cue(
    "ask_payment",
    "Asks for a payment, fee or fine",
    "\\b(?:pay (?:the|a|this|your|an|that) (?:fine|fee|penalty|amount|balance|settlement|bill|tax|taxes|dues)|processing fee|release fee|clearance fee|customs (?:fee|duty|charges)|settlement amount|outstanding (?:balance|amount|payment|taxes|dues)|make (?:a|the) payment|(?:back|unpaid) taxes|unpaid (?:tickets?|tolls?|balance|bill|invoice|fines?)|towed|booted|late fee|deposit of|redelivery fee|amount due|you owe)\\b",
  ),

  cue(
    "pressure_legal",
    "Threatens arrest, a lawsuit or legal action",
    "\\b(?:arrest(?:ed)?|warrant|jail|prison|custody|detain(?:ed)?|handcuff\\w*|criminal (?:case|charges?|complaint|investigation|record)|legal (?:action|proceedings?|case|complaint|notice)|law ?suit|sued|sue you|court (?:date|case|hearing|order)|prosecut\\w*|indict\\w*|lien|seiz(?:e|ed|ure)|freeze (?:your )?(?:assets|accounts?)|felony|penalt(?:y|ies)|summons)\\b",
  ),
  cue(
    "pressure_account",
    "Says an account or service is compromised, suspended or charged",
    "\\b(?:suspend(?:ed|ing|sion)?|(?:will be|has been|have been|is being|being|was|is) (?:cancel+ed|terminated|disconnected|blocked|locked|frozen|closed|deactivated|compromised|hacked|breached|flagged)|shut (?:off|down)|cut off)\\b",
    "\\b(?:suspicious (?:activity|activities|charges?|transactions?|login|purchases?|payments?|transfers?)|unauthori[sz]ed (?:charges?|transactions?|purchases?|activity|access|use)|fraudulent (?:activity|activities|charges?|transactions?|use)|illegal (?:activity|activities)|identity (?:theft|has been stolen|stolen)|stolen identity|security (?:breach|alert|issue)|data breach|access to (?:the |your )?(?:[a-z]+ )?(?:device|computer|account|system) (?:has been|is|was) (?:blocked|locked|suspended|denied)|someone (?:is )?(?:using|used|has used) your)\\b",
    "\\b(?:(?:was|were|been|be) charged|a charge of|debited|deducted from your|(?:[0-9]+|hundred|thousand) dollars (?:on|to|from|charged to) your (?:card|account))\\b",
  ),
  cue(
    "pressure_deadline",
    "Presses for action now",
    "\\b(?:(?:within|in the next) (?:[0-9]+|24|48|72) (?:hours?|minutes?|days?)|immediate(?:ly)?|right (?:now|away)|final (?:notice|attempt|warning|call|reminder)|last (?:chance|notice|attempt|warning)|before it s too late|before we (?:take|close|proceed|file)|(?:must|need to) (?:pay|call|act|respond) today|only good (?:on|for) this call|urgent(?:ly)?|as soon as possible|time sensitive|expir(?:es|ing) (?:today|soon|tomorrow)|today only|limited time|act now|don t delay|do not ignore)\\b",
  ),
  cue(
    "pressure_secrecy",
    "Asks to keep the call secret or not to hang up",
    "\\b(?:don t (?:tell|talk to|inform|mention)|do not (?:tell|talk to|inform|discuss|share this|hang up|disconnect)|keep (?:this|it) (?:confidential|secret|between)|confidential (?:case|investigation|matter)|don t hang up|gag order|not to tell anyone|can t tell anyone)\\b",
  ),

  cue(
    "offer_prize",
    "Announces a prize, reward or grant",
    "\\b(?:(?:you ve|you have|you) (?:won|been selected|been chosen|been awarded)|winner|prize|lottery|sweepstakes?|jackpot|congratulations|free (?:cruise|vacation|trip|gift|iphone|gift card)|cash (?:prize|reward)|complimentary (?:stay|vacation|cruise|gift|trip|night)|(?:pre ?selected|selected|chosen) (?:to receive|for (?:a|our))|reward (?:points|program)|grant (?:money|of|program)|government grant|you are (?:eligible|approved) to receive)\\b",
  ),
  cue(
    "offer_refund",
    "Offers a refund or compensation",
    "\\b(?:refund(?:ed|s)?|over ?charg\\w*|reimburse\\w*|money back|compensation|rebate|tax credit|stimulus (?:check|payment))\\b",
  ),
  cue(
    "offer_loan",
    "Offers a loan, debt relief or a lower rate",
    "\\b(?:loans?|debt (?:relief|consolidation|settlement|reduction|free)|credit (?:score|repair|card debt|card interest)|lower (?:your )?(?:interest )?rates?|interest rates?|student loans?|loan forgiveness|forgive(?:n|ness)|pre ?approved|line of credit|business (?:funding|loan|capital)|merchant (?:cash|services)|zero percent|0 percent (?:interest|apr)|apr|rate (?:reduction|expiration|expiring)|reduce your (?:interest )?rates?|eligibility for (?:a )?(?:rate|lower))\\b",
  ),
  cue(
    "offer_warranty",
    "Offers a vehicle warranty or service contract",
    "\\b(?:(?:car s|vehicle s|cars|vehicles|auto|car|vehicle|extended|factory|manufacturer s?) (?:warranty|warranties|service contract|protection)|vehicle service contract|warranty (?:has|is|will) (?:expired|expiring|about to expire|expire))\\b",
  ),
  cue(
    "offer_deal",
    "Pitches a discount, free service or savings",
    "\\b(?:(?:[0-9]+|half) percent (?:off|discount)|discount(?:ed)?|qualif(?:y|ied|ies) for|eligible for|special (?:offer|promotion|program|pricing)|free (?:of charge|quote|estimate|consultation|inspection|installation)|no (?:cost|charge) to you|at no cost|absolutely free|save (?:money|up to|you)|savings|solar|home (?:improvement|warranty|security system)|energy (?:efficient|savings|program)|lower your (?:bill|payments?|monthly)|overpaying|saving over|save over|free (?:roof|home|energy) (?:inspection|audit|assessment))\\b",
  ),
  cue(
    "offer_investment",
    "Pitches an investment or trading profits",
    "\\b(?:invest(?:ment|ments|ing|or)?|trading (?:platform|account|app)|profits?|returns? (?:of|on your)|guaranteed returns?|passive income|forex|stocks?|gold and silver|precious metals|ira|401 ?k|retirement (?:savings|account)|withdrawal (?:fee|tax)|double your money|market (?:will|is going to))\\b",
  ),
  cue(
    "offer_job",
    "Offers a job or work from home",
    "\\b(?:job (?:application|offer|opportunity|interview)|hiring|work from home|data entry|shortlisted|remote (?:job|position|work)|recruit(?:er|ment|ing)|staffing agency|interview|telegram|whats ?app|part time (?:job|work|position))\\b",
  ),

  cue(
    "robo_message",
    "Speaks as a recorded message to nobody by name",
    "\\b(?:this is (?:an?|your) (?:recorded|automated|pre ?recorded|important|final|courtesy|urgent|second|last) (?:message|notice|call|reminder|notification)|this (?:message|call|notice) is (?:from|regarding|to inform|to notify|about|for)|this is a (?:call|message) from|we (?:have been|ve been|are) (?:trying to (?:reach|contact) you|unable to reach you)|(?:the )?(?:reason|purpose) (?:for|of) (?:this|my|the|our) call|this call is (?:the|our) (?:last|final)|(?:letters?|notices?|emails?) (?:went unanswered|have gone unanswered)|we are (?:calling|reaching out) (?:you )?(?:to|regarding|about|from)|(?:calling|call) (?:you )?(?:to let you know|to inform you|to notify you|in regards? to|regarding your)|this is to (?:inform|notify) you|you are receiving this (?:call|message)|exclusive (?:announcement|offer|message))\\b",
  ),
  cue(
    "robo_opt_out",
    "Offers a way to be removed from the calling list",
    "\\b(?:to be (?:removed|taken off|placed on)|opt out|do not call (?:list|registry)|unsubscribe|remove (?:your number|you) from|no longer (?:wish|want) to receive|to (?:stop|end) (?:receiving )?(?:these|this|our) (?:calls|messages))\\b",
  ),
  cue(
    "robo_transfer",
    "Offers to connect to an agent or officer",
    "\\b(?:(?:speak|talk|connect(?:ed)?) (?:to|with) (?:an? |our |the )?(?:live |licensed |senior |next available )?(?:agent|representative|rep|operator|officer|specialist|advisor|adviser|supervisor|investigator|person|associate|expert|presenters?)|(?:transfer|connect)(?:ring|ed)? you (?:to|with)|stay on the line|hold the line|next available)\\b",
  ),

  cue(
    "callee_suspects",
    "The person called says it sounds like a scam or denies the story",
    "\\b(?:(?:is this|this is|sounds like|you re|you are|this sounds like|that s) (?:a |an )?(?:scam|fraud|fake)|scammers?|i (?:never|didn t|did not) (?:order(?:ed)?|buy|bought|make|made|authori[sz]e|place|placed|sign(?:ed)? up)|how did you get my (?:number|information|details)|i don t (?:have|own) (?:a |an )?(?:computer|amazon|windows|account with)|i ll call (?:my bank|them|the bank|the number) (?:myself|directly|back)|i m (?:going to )?report(?:ing)? (?:you|this))\\b",
  ),
  cue(
    "callee_refuses",
    "The person called refuses to give details or pay",
    "\\b(?:i m not (?:giving|going to give|sharing|comfortable)|i (?:won t|will not|don t) (?:give|share) (?:you )?(?:my|that|any|out)|i m not (?:paying|going to pay|buying)|i (?:won t|will not) (?:pay|send|buy)|i m hanging up|i m going to hang up|stop calling|don t call (?:me|here) again|take me off your list)\\b",
  ),

  cue(
    "genuine_warning",
    "Warns that the organisation never asks for codes, PINs or payment by phone",
    "\\b(?:(?:will|would|does|do|we|i|they|nobody|no (?:one|1)) never (?:ask|call|request|contact)|never asks? (?:you )?(?:for|to)|never (?:share|give) (?:your|this|the) (?:code|pin|password)|call the number on the back of your card|hang up and call (?:us|the number)|using the number on (?:your|the) (?:card|statement|bill|website))\\b",
  ),
  cue(
    "genuine_service",
    "Speaks of a booked service: an appointment, a prescription, a reservation, a survey",
    "\\b(?:appointments?|reschedul\\w*|reservations?|booking|table for|prescriptions?|refill|pharmacy|ready for pick ?up|delivery (?:window|slot|between)|tracking number|check ?in|boarding|gate (?:change|number)|flight|school|survey|town hall|dentist|clinic|veterinar\\w*|groom\\w*|scan|mri)\\b",
  ),
];

/** The keyword a family adds to the verdict: what a person would search calls for. */
export const CUE_KEYWORDS: Record<CueFamily, string | null> = {
  imp_government: "government impersonation",
  imp_bank: "bank impersonation",
  imp_tech: "tech support",
  imp_retail: "retail order",
  imp_utility: "utility disconnection",
  imp_carrier: "phone provider",
  imp_health: "medicare",
  imp_relative: "relative in trouble",
  imp_charity: "donation",
  ask_gift_card: "gift cards",
  ask_wire: "wire transfer",
  ask_crypto: "cryptocurrency",
  ask_courier: "cash courier",
  ask_remote: "remote access",
  ask_code: "one-time code",
  ask_identity: "card or identity numbers",
  ask_press: "press 1",
  ask_callback: "call back",
  ask_payment: "payment demand",
  pressure_legal: "arrest or legal threat",
  pressure_account: "account compromised",
  pressure_deadline: "urgency",
  pressure_secrecy: "secrecy",
  offer_prize: "prize",
  offer_refund: "refund",
  offer_loan: "loan or lower rate",
  offer_warranty: "vehicle warranty",
  offer_deal: "sales pitch",
  offer_investment: "investment",
  offer_job: "job offer",
  robo_message: "recorded message",
  robo_opt_out: "opt-out line",
  robo_transfer: "transfer to an agent",
  callee_suspects: "callee suspects a scam",
  callee_refuses: "callee refuses",
  genuine_warning: null,
  genuine_service: null,
};

export type CueHit = { family: CueFamily; label: string; index: number; match: string };

/** "We never ask for gift cards", "you are not under arrest": a negator a few words before an ask or a threat. */
const NEGATED = /\b(?:never|not|no|don t|do not|won t|will not|doesn t|does not|cannot|can t|nobody|without)(?: [a-z0-9]+){0,3} $/;
// A key press or a call back is asked for after any clause ("if you did not authorise this, press 1").
const NEGATABLE = (family: CueFamily) =>
  (family.startsWith("ask_") && family !== "ask_press" && family !== "ask_callback") || family.startsWith("pressure_");

function firstMatch(definition: CueDefinition, normalised: string): RegExpExecArray | null {
  let first: RegExpExecArray | null = null;
  for (const pattern of definition.patterns) {
    const global = pattern;
    global.lastIndex = 0;
    for (let m = global.exec(normalised); m; m = global.exec(normalised)) {
      if (first && m.index >= first.index) break;
      const negated = NEGATABLE(definition.family) && NEGATED.test(normalised.slice(Math.max(0, m.index - 48), m.index));
      if (!negated) {
        first = m;
        break;
      }
      if (m[0].length === 0) global.lastIndex++;
    }
  }
  return first;
}

/** Every family heard in `normalised` (normaliseForCues), with the first place it was heard. */
export function cueHits(normalised: string): CueHit[] {
  const hits: CueHit[] = [];
  for (const definition of CUES) {
    const first = firstMatch(definition, normalised);
    if (first) hits.push({ family: definition.family, label: definition.label, index: first.index, match: first[0] });
  }
  return hits;
}

package vaultgen

// The pools below are the raw material of every generated vault. They are
// ordered slices, never maps, so that indexing them with the seeded random
// source gives the same output everywhere. Changing any of them changes the
// bytes of every vault, which is fine as long as it is done on purpose.

// topics are the subjects notes are about. They name notes, fill sentences
// and headings, and give keyword search terms of very different frequencies
// (topics are picked with a skew, so the first ones are common).
// None contains a character that is special in a link or a file name.
var topics = []string{
	"weekly review", "error handling", "database indexes", "caching strategy", "code review",
	"unit tests", "API design", "logging", "deployment pipeline", "feature flags",
	"dependency updates", "query planner", "rate limiting", "retry logic", "memory profiling",
	"the build system", "schema migrations", "background jobs", "search ranking", "full-text search",
	"vector embeddings", "SQLite", "Go modules", "goroutine leaks", "HTTP timeouts",
	"TLS certificates", "container images", "CI runners", "incident review", "on-call rotation",
	"observability", "tracing", "load testing", "data retention", "backups",
	"access control", "onboarding docs", "technical debt", "refactoring", "pair programming",
	"the monorepo", "release notes", "accessibility", "dark mode", "mobile layout",
	"design system", "user interviews", "pricing page", "customer feedback", "roadmap",
	"quarterly goals", "hiring loop", "interview questions", "team rituals", "time blocking",
	"deep work", "note taking", "spaced repetition", "reading list", "book highlights",
	"writing habit", "morning pages", "journaling", "meditation", "sleep schedule",
	"running plan", "strength training", "stretching routine", "meal prep", "sourdough starter",
	"bread hydration", "fermentation", "kimchi", "coffee grind size", "pour over",
	"espresso dialing", "tomato seedlings", "compost", "raised beds", "watering schedule",
	"houseplants", "household budget", "emergency fund", "index funds", "tax deadlines",
	"insurance", "rent negotiation", "home renovation", "kitchen tiles", "paint colours",
	"the bathroom leak", "bike maintenance", "camera settings", "film photography", "street photography",
	"guitar practice", "music theory", "jazz standards", "language learning", "Japanese grammar",
	"Spanish vocabulary", "travel packing", "train routes", "visa paperwork", "hiking trails",
	"camping gear", "birthday gifts", "family history", "the wedding plan", "volunteering",
	"public speaking", "conference talks", "slide design", "podcast ideas", "the newsletter",
	"blog drafts", "side project", "domain names", "invoicing", "client onboarding",
	"contract templates", "email templates", "inbox zero", "calendar cleanup", "password manager",
	"home network", "the NAS", "keyboard shortcuts", "terminal setup", "dotfiles",
	"Vim motions", "Obsidian plugins", "Zettelkasten", "evergreen notes", "literature notes",
	"project retrospectives", "decision log", "risk register", "stakeholder map", "budget forecast",
	"vendor comparison", "cloud costs", "data pipeline", "event sourcing", "message queues",
	"graph traversal", "link analysis", "knowledge graph", "climate data", "statistics basics",
	"linear regression", "Bayesian thinking", "experiment design", "survey results", "literature review",
	"thesis outline", "research questions", "lab notebook", "citation style", "peer review",
	"grant proposal", "Node.js tooling", "Rust lifetimes", "Python packaging", "shell scripts",
	"regular expressions", "Unicode normalization", "time zones", "date parsing", "CSV imports",
	"spreadsheet formulas", "product metrics", "churn analysis", "A-B tests", "landing page copy",
	"brand colours", "font pairing", "wireframes", "usability testing", "support tickets",
	"knowledge base", "meeting cadence", "one-on-ones", "career ladder", "performance reviews",
	"salary negotiation", "learning budget", "mentoring", "burnout", "focus music",
	"standing desk", "home office", "commute", "bird watching", "star gazing",
	"chess openings", "board games", "woodworking", "knitting patterns", "pottery",
}

// nameSuffixes turn a topic into a note name: "Error handling checklist".
var nameSuffixes = []string{
	"notes", "ideas", "checklist", "plan", "overview", "cheatsheet", "reading list",
	"open questions", "lessons learned", "draft", "log", "FAQ", "guide", "setup",
	"comparison", "summary", "playbook", "timeline", "experiments", "research",
}

var howToVerbs = []string{
	"improve", "set up", "think about", "measure", "debug", "plan", "simplify",
	"explain", "automate", "review", "get started with", "teach",
}

var firstNames = []string{
	"Alex", "Priya", "Sam", "Maria", "José", "Zoë", "Søren", "Ana", "Björn", "Chloé",
	"Mateo", "Wei", "Yuki", "Olusegun", "Fatima", "Dmitri", "Aisha", "Liam", "Noah", "Emma",
	"Sofia", "Lucas", "Mia", "Hiroshi", "Inês", "Tomás", "Kofi", "Leila", "Marta", "Jonas",
	"Elena", "Raj", "Nadia", "Jordan", "Taylor", "Morgan", "Oskar", "Greta", "Pablo", "Camille",
	"Anya", "Ravi", "Mei", "Omar", "Hana", "Felix", "Clara", "David", "Sarah", "Kenji",
}

var lastNames = []string{
	"Chen", "García", "Müller", "Okafor", "Nakamura", "Kowalski", "Silva", "Johansson", "Patel", "Nguyen",
	"Rossi", "Dubois", "Ivanov", "Haddad", "O'Brien", "van der Berg", "Smith", "Brown", "Kim", "Park",
	"Singh", "Costa", "Novak", "Horvat", "Andersen", "Fischer", "Moreau", "López", "Sato", "Tanaka",
	"Ali", "Hassan", "Mensah", "Adeyemi", "Schmidt", "Wagner", "Lindqvist", "Petrov", "Romano", "Ferreira",
	"Jensen", "Murphy", "Walsh", "Yılmaz", "Demir", "Kaya", "Lee", "Wong", "Eriksen", "Novotná",
}

var bookAdjectives = []string{
	"Quiet", "Last", "Hidden", "Long", "Small", "Invisible", "Patient", "Broken", "Open", "Distant",
	"Lost", "Careful", "Second", "Shallow", "Deep", "Slow", "Practical", "Restless", "Honest", "Unfinished",
	"Curious", "Wild", "Gentle", "Silent", "Northern",
}

var bookNouns = []string{
	"Machine", "Garden", "River", "Archive", "Habit", "Mountain", "Library", "Signal", "Harbour", "Map",
	"City", "Kitchen", "Experiment", "Network", "Island", "Workshop", "Letter", "Season", "Bridge", "Atlas",
	"Forest", "Engine", "Lighthouse", "Notebook", "Orchard", "Border", "Theory", "Mirror", "Compass", "Question",
}

var meetingTypes = []string{
	"Weekly sync", "Planning", "Retro", "Standup", "Design review", "Budget review", "Kickoff",
	"Client call", "Interview debrief", "All hands", "Sprint review", "Roadmap review", "Vendor call",
	"Incident review", "Brainstorm",
}

// dupNames are the base names real vaults repeat in many folders.
var dupNames = []string{
	"Index", "Meeting notes", "Ideas", "TODO", "Overview", "Retrospective", "README", "Scratchpad",
}

var headingsEN = []string{
	"Summary", "Background", "Context", "Key ideas", "Open questions", "Next steps", "Action items",
	"Decisions", "Notes", "Log", "References", "Resources", "Details", "Problems", "What worked",
	"What did not work", "Lessons learned", "Timeline", "Budget", "Options", "Pros and cons", "Setup",
	"Usage", "Examples", "Checklist", "Ideas", "Follow-up", "Questions for next time", "Risks",
	"Metrics", "Goals", "Tasks", "Reading", "Quotes", "Highlights", "Takeaways", "Outline", "Method",
	"Results", "Discussion", "Ingredients", "Steps", "Costs", "People", "Agenda", "Attendees",
	"Notes from the call", "Status", "Plan", "Constraints", "Assumptions", "Alternatives", "Glossary",
	"Troubleshooting", "Known issues", "Configuration", "Installation", "Benchmarks", "Observations",
	"Hypothesis", "Data", "Analysis", "Morning", "Evening", "Weekly review", "Scope", "Open threads",
}

var headingsZH = []string{"概要", "背景", "下一步", "问题", "想法", "总结", "参考资料", "待办事项"}
var headingsJA = []string{"概要", "メモ", "次のステップ", "感想", "背景", "やること", "参考", "まとめ"}
var headingsRU = []string{"Итоги", "Контекст", "Следующие шаги", "Вопросы", "Идеи", "Ссылки", "Задачи", "Заметки"}
var headingsAR = []string{"ملخص", "الخلفية", "الخطوات التالية", "أسئلة", "أفكار", "مراجع", "مهام", "ملاحظات"}

var subjects = []string{
	"I", "We", "The team", "My manager", "Sam", "Everyone", "The client", "My sister", "Our group",
	"Priya", "Nobody here", "Marta", "The new hire", "Dad", "My editor",
}

var verbs = []string{
	"decided to revisit", "should look into", "spent an hour on", "kept coming back to",
	"finally understood", "wrote a short summary of", "compared notes on", "set aside time for",
	"had to rethink", "asked around about", "started tracking", "found a better approach to",
	"will revisit", "made a list about", "had a long discussion about", "simplified", "documented",
	"paused work on", "got stuck on", "sketched a plan for", "read about", "tested", "measured",
	"cleaned up", "reorganised", "prototyped", "reviewed", "questioned", "gave up on", "rediscovered",
}

var articles = []string{"the ", "our ", "my ", "", ""}

var tails = []string{
	"", "", "", "", " before the next review", " after reading the docs",
	" because the old setup kept failing", " last Tuesday", " with mixed results", " on the train home",
	" this quarter", " and it went better than expected", " but the details are still fuzzy",
	", which saved a lot of time", " for the third time", " without much progress", " over the weekend",
	" during the retro", " while waiting for feedback", " with a fresh pair of eyes", " in about twenty minutes",
	" at the café downstairs",
}

var clauses = []string{
	"small changes compound over time", "the defaults are usually good enough",
	"nobody reads the long version", "you only notice the problems at scale",
	"it has to be boring to be reliable", "the first draft is always too long",
	"measuring it changes the behaviour", "the hard part is deciding what to leave out",
	"it only works if you do it every week", "naming things carefully saves time later",
	"most of the cost is in the setup", "the simplest version is usually enough",
	"feedback arrives too late to be useful", "you should write down why, not just what",
	"the bottleneck is rarely where you expect", "it gets easier after the third try",
	"context matters more than the tool", "a checklist beats memory",
	"the numbers only make sense side by side", "people skip steps when they are tired",
}

var conditions = []string{
	"the scope is small", "everyone agrees on the goal first", "there is a clear owner",
	"you review it weekly", "the inputs are clean", "it is written down", "you start early in the day",
	"there is a deadline", "the feedback loop is short", "nothing else is running",
}

var questions = []string{
	"how does this scale past a few hundred items", "is this worth automating",
	"what would the simplest version look like", "who else should see this",
	"what did we decide last time", "where does the time actually go", "can this wait until next month",
	"what are we optimising for", "which part is actually slow",
}

var imperatives = []string{
	"check the numbers again on Friday", "ask for a second opinion", "write the summary before the details",
	"move this to the archive when done", "split this note if it keeps growing",
	"book time in the calendar for it", "compare against last year's figures", "clean up the tags",
	"call the plumber", "renew the passport", "order more filters", "reply to the landlord",
	"back up the laptop", "update the spreadsheet",
}

var activities = []string{
	"set everything up", "read the whole chapter", "fix the first bug", "get a working draft",
	"clean the data", "walk through the checklist", "reorganise the folder", "sort the receipts",
}

var purposes = []string{
	"the details", "background", "the full list", "an earlier attempt", "how this started",
	"the numbers", "the original discussion", "a worked example",
}

var linkIntros = []string{"This builds on", "Compare with", "More in", "Related:", "Also see", "Context is in"}

var displays = []string{
	"this note", "here", "the notes", "earlier thoughts", "last time", "that idea", "the details",
	"background", "the write-up", "my summary", "the checklist", "the plan", "this",
}

var tagPool = []string{
	"idea", "todo", "project", "reading", "review", "inbox", "meeting", "book", "draft", "evergreen",
	"question", "reference", "howto", "status/active", "status/done", "status/waiting", "area/health",
	"area/finance", "area/home", "area/career", "project/website", "project/thesis", "project/garden",
	"project/website/design", "type/meeting", "type/daily", "lang/go", "lang/python", "cooking/bread",
	"cooking/fermentation", "travel/japan", "travel/portugal", "learning/japanese", "learning/music",
	"research/method", "research/data", "writing/blog", "person", "someday", "y2024",
}

var unicodeTags = []string{"日记", "読書", "заметки", "café", "مهم", "idée/nouvelle"}

var calloutTypes = []string{
	"note", "tip", "info", "warning", "important", "question", "todo", "example", "quote",
	"abstract", "success", "failure", "danger", "bug",
}

var tableHeaders = []string{"Item", "Status", "Owner", "Due", "Cost", "Notes", "Date", "Score", "Link"}

var statuses = []string{"draft", "active", "done", "waiting", "someday", "blocked", "in-progress"}

var places = []string{"Lisbon", "Kyoto", "Berlin", "Toronto", "Nairobi", "Oaxaca", "Tbilisi", "Reykjavík", "Kraków", "Seoul"}

var emojis = []string{"✅", "🚧", "💡", "🎉", "🔥", "📌", "🙂", "☕"}

// A language decides the script of a minority of notes: their names,
// headings and most of their sentences.
type language int

const (
	langEnglish language = iota
	langChinese
	langJapanese
	langRussian
	langArabic
	langLatin // accented Latin: French, German, Spanish, Portuguese, Nordic
	langEmoji // English with emoji in the name and text
	numLanguages
)

// nativeName is a note name with an English rendering that can serve as
// its alias.
type nativeName struct{ native, english string }

var nativeNames = [numLanguages][]nativeName{
	langChinese: {
		{"读书笔记", "Reading notes"}, {"项目计划", "Project plan"}, {"会议记录", "Meeting minutes"},
		{"旅行日记", "Travel diary"}, {"学习心得", "Study reflections"}, {"工作总结", "Work summary"},
		{"咖啡笔记", "Coffee notes"}, {"周报", "Weekly report"}, {"菜谱", "Recipes"},
		{"健身计划", "Workout plan"}, {"家庭预算", "Family budget"}, {"摄影技巧", "Photography tips"},
		{"书单", "Book list"}, {"年度目标", "Yearly goals"},
	},
	langJapanese: {
		{"読書メモ", "Reading memo"}, {"日記", "Diary"}, {"料理のレシピ", "Cooking recipes"},
		{"旅行の計画", "Trip plan"}, {"勉強ノート", "Study notebook"}, {"会議メモ", "Meeting memo"},
		{"アイデア帳", "Idea book"}, {"買い物リスト", "Shopping list"}, {"映画の感想", "Film impressions"},
		{"散歩の記録", "Walk log"}, {"東京のカフェ", "Tokyo cafes"}, {"引っ越しの準備", "Moving preparations"},
	},
	langRussian: {
		{"Заметки о работе", "Work notes"}, {"План на неделю", "Plan for the week"},
		{"Идеи для дома", "Ideas for the flat"}, {"Список книг", "Books to read"}, {"Итоги года", "Year in review"},
		{"Поездка в Казань", "Kazan trip"}, {"Рецепт борща", "Borscht recipe"}, {"Бюджет на месяц", "Monthly budget"},
		{"Встреча с командой", "Team meeting"}, {"Вопросы к интервью", "Interview prep"},
		{"Уроки гитары", "Guitar lessons"}, {"Черновик статьи", "Article draft"},
	},
	langArabic: {
		{"ملاحظات الاجتماع", "Meeting remarks"}, {"خطة المشروع", "Project outline"}, {"أفكار جديدة", "New ideas"},
		{"قائمة الكتب", "Reading queue"}, {"يوميات السفر", "Travel journal"}, {"الميزانية الشهرية", "Monthly spending"},
		{"وصفات الطبخ", "Cooking notes"}, {"دروس اللغة", "Language lessons"}, {"أهداف السنة", "Goals for the year"},
		{"مراجعة أسبوعية", "Weekly check-in"},
	},
	langLatin: {
		{"Café de la gare", "Station café"}, {"Résumé du livre", "Book résumé"}, {"Idées de cadeaux", "Gift ideas"},
		{"Über das Lernen", "On learning"}, {"Año nuevo", "New year"}, {"Notas de reunión", "Meeting notas"},
		{"Crème brûlée", "Custard dessert"}, {"Smörgåsbord", "Buffet ideas"}, {"São Paulo trip", "Brazil trip"},
		{"Kraków itinerary", "Poland itinerary"}, {"Zürich apartment", "Swiss flat"}, {"Déjà vu moments", "Deja vu"},
		{"Piñata party", "Birthday party"}, {"Ærø weekend", "Danish island weekend"}, {"Łódź conference", "Lodz conference"},
	},
	langEmoji: {
		{"🚀 Launch checklist", "Launch list"}, {"📚 Reading queue", "Books queue"}, {"💡 Ideas inbox", "Idea inbox"},
		{"🌱 Garden log", "Garden diary"}, {"🧳 Trip planning", "Trip prep"}, {"🎸 Practice log", "Guitar log"},
		{"🧘 Habits", "Habit tracker"}, {"☕ Coffee log", "Coffee diary"}, {"🏠 Home projects", "House projects"},
		{"🎯 Goals", "Targets"}, {"🐛 Bug journal", "Bug diary"}, {"🍳 Breakfast ideas", "Breakfast list"},
	},
}

// nativeSentences are whole sentences written in each language.
var nativeSentences = [numLanguages][]string{
	langChinese: {
		"今天把这部分重新整理了一遍，思路清楚多了。",
		"这个方法在小规模的时候效果最好。",
		"下周需要和团队再讨论一次细节。",
		"读完第三章以后，我对这个问题有了新的理解。",
		"先写下为什么，再写怎么做。",
		"预算比上个月多用了一点，需要注意。",
		"最重要的是每周坚持复盘。",
		"这个想法还不成熟，先记下来。",
	},
	langJapanese: {
		"今日はこの部分を整理し直して、だいぶ分かりやすくなった。",
		"この方法は小さく始めるとうまくいく。",
		"来週、チームと詳細をもう一度確認する予定。",
		"第三章を読んで、新しい視点が得られた。",
		"まず理由を書いてから、手順を書くこと。",
		"予算を少し超えてしまったので注意が必要。",
		"毎週の振り返りを続けることが一番大事。",
		"まだ考えがまとまっていないので、とりあえずメモしておく。",
	},
	langRussian: {
		"Сегодня я заново разобрал этот раздел, и стало гораздо понятнее.",
		"Этот подход лучше всего работает на небольших объёмах.",
		"На следующей неделе нужно ещё раз обсудить детали с командой.",
		"После третьей главы я по-новому посмотрел на эту задачу.",
		"Сначала записать, зачем это нужно, а потом как.",
		"В этом месяце мы немного вышли за рамки бюджета.",
		"Главное — не пропускать еженедельный обзор.",
		"Идея пока сырая, но лучше её записать.",
	},
	langArabic: {
		"أعدت اليوم تنظيم هذا الجزء وأصبح أوضح بكثير.",
		"هذه الطريقة تعمل بشكل أفضل على نطاق صغير.",
		"يجب مناقشة التفاصيل مع الفريق الأسبوع القادم.",
		"بعد قراءة الفصل الثالث فهمت المشكلة بشكل مختلف.",
		"اكتب السبب أولاً ثم الخطوات.",
		"تجاوزنا الميزانية قليلاً هذا الشهر.",
		"الأهم هو الاستمرار في المراجعة الأسبوعية.",
		"الفكرة ما زالت غير مكتملة لكن من الأفضل تدوينها.",
	},
	langLatin: {
		"J'ai relu le chapitre au café, et tout est devenu plus clair.",
		"Die Idee ist noch nicht ganz ausgereift, aber ich schreibe sie trotzdem auf.",
		"La próxima semana revisaremos el presupuesto con más calma.",
		"Für die Übersetzung brauche ich noch zwei Tage.",
		"Prévoir une réunion avec l'équipe avant vendredi.",
		"El café de la esquina tiene el mejor wifi de la ciudad.",
		"Smörgåsbord, crème brûlée und Straßenbahn: alles in einer Woche.",
		"Não esquecer de confirmar a reserva em São Paulo.",
	},
}

// seeAlso wraps a link in a short "see also" sentence of each language:
// prefix, link, suffix.
var seeAlso = [numLanguages][2]string{
	langChinese:  {"参见 ", "。"},
	langJapanese: {"", " も参照。"},
	langRussian:  {"См. также ", "."},
	langArabic:   {"انظر أيضاً ", "."},
	langLatin:    {"Voir aussi ", "."},
}

// codeSamples are fenced code blocks. "{link}" is replaced by a note name
// (real or not) inside double brackets and "{tag}" by a tag: neither is a
// link or a tag, because both sit inside code. Lines are joined with "\n".
var codeSamples = []struct {
	lang  string
	lines []string
}{
	{"go", []string{
		"// parseLink splits a wikilink such as {link}; a #not-a-tag comment.",
		"func parseLink(s string) (target, alias string) {",
		"\ttarget, alias, _ = strings.Cut(strings.Trim(s, \"[]\"), \"|\")",
		"\treturn target, alias",
		"}",
	}},
	{"python", []string{
		"# {tag} is only a comment here, and so is {link}",
		"import re",
		"",
		"WIKILINK = re.compile(r\"\\[\\[([^\\]|#]+)\")",
		"tags = [\"{tag}\", \"#also/not-a-tag\"]",
		"print(WIKILINK.findall(\"{link}\"))",
	}},
	{"bash", []string{
		"# find every note that mentions {link}",
		"grep -rl '{link}' ~/vault | sort",
		"rg --count '{tag}' ~/vault",
	}},
	{"markdown", []string{
		"{link} is inside a fence, so it is not a link.",
		"Neither is {tag} a tag.",
		"- [ ] copy this template",
	}},
	{"yaml", []string{
		"tags: [\"{tag}\"]",
		"related: \"{link}\"",
		"publish: false",
	}},
	{"sql", []string{
		"SELECT path FROM notes",
		"WHERE body LIKE '%{link}%' -- {tag}",
		"ORDER BY mtime DESC",
		"LIMIT 20;",
	}},
	{"json", []string{
		"{",
		"  \"link\": \"{link}\",",
		"  \"tag\": \"{tag}\"",
		"}",
	}},
	{"js", []string{
		"// plain code without fake links",
		"const total = items.reduce((sum, item) => sum + item.price, 0);",
		"console.log(`total: ${total.toFixed(2)}`);",
	}},
	{"", []string{
		"{link} {tag}",
		"    indented text in an unlabeled fence",
	}},
}

var fakeTags = []string{"#not-a-tag", "#todo", "#nested/not-a-tag", "#draft"}

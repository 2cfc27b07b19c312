package longgenbench

// The pools the generator draws from, written for ifkit (the official
// notebooks' lists are not reused). Events carry no digits or month names,
// so a requirement line always reads back unambiguously.

var diaryNames = []string{
	"Amara", "Bruno", "Chiara", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas",
	"Kalani", "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Soren", "Tamsin",
}

var diaryJobs = []string{
	"marine biologist", "bakery owner", "structural engineer", "school librarian", "emergency nurse",
	"landscape painter", "software tester", "orchestra violinist", "park ranger", "tax accountant",
	"furniture maker", "radio host", "veterinarian", "translator", "bus driver",
}

var diaryRelations = []string{
	"my mother", "my father", "my sister", "my brother", "my daughter", "my son",
	"my grandmother", "my grandfather", "my partner", "my best friend", "my aunt", "my uncle",
	"my niece", "my nephew", "my godson",
}

var diarySpans = []string{
	"a sailing trip along the Dalmatian coast", "a family stay at a lake cabin in Finland",
	"a work conference in Toronto", "a hiking tour in the Scottish Highlands",
	"a visit to relatives in Lisbon", "a cooking course in Bologna",
	"a volunteer week at a wildlife shelter", "a road trip through Patagonia",
	"a ski holiday in the Dolomites", "a photography workshop in Iceland",
	"a kitchen renovation at home", "a camping trip in Yosemite",
	"a language course in Seoul", "a cycling tour of the Loire valley",
}

var diaryHabits = []string{
	"a pottery class", "a volunteer shift at the food bank", "a chess club evening",
	"a long bike ride with friends", "a visit to the farmers market", "a board game night",
	"a swimming lesson with the kids", "a choir rehearsal", "a dinner with my old classmates",
	"a yoga session in the park", "a museum visit", "a community garden workday",
}

// menuEvent is an event of the menu scenario with the dish that marks it.
type menuEvent struct{ name, dish string }

func (m menuEvent) String() string { return m.name + " featuring " + m.dish }

var menuOnce = []menuEvent{
	{"Lantern Festival Supper", "sesame rice dumplings"}, {"Harvest Moon Dinner", "roast pumpkin soup"},
	{"Founders Day Brunch", "buttermilk pancakes"}, {"Spring Equinox Lunch", "pea and mint risotto"},
	{"Chef's Birthday Tasting", "black truffle tagliatelle"}, {"Bastille Evening", "duck confit"},
	{"Burns Night Feast", "haggis with neeps"}, {"Cherry Blossom Tea", "matcha sponge cake"},
	{"Oktoberfest Night", "pork knuckle with sauerkraut"}, {"Diwali Dinner", "paneer tikka masala"},
	{"Winter Solstice Supper", "slow braised short ribs"}, {"Earth Day Menu", "roasted root vegetable tart"},
	{"Day of the Dead Dinner", "mole poblano"}, {"Midsummer Picnic", "cured herring with dill potatoes"},
	{"Valentine Dinner", "lobster bisque"}, {"Olive Harvest Lunch", "focaccia with new olive oil"},
}

var menuSpans = []menuEvent{
	{"Asparagus Season", "white asparagus with hollandaise"}, {"Oyster Festival", "oysters on ice"},
	{"Truffle Weeks", "truffle risotto"}, {"Berry Season", "summer berry pavlova"},
	{"Game Season", "venison loin"}, {"Street Food Festival", "bao buns"},
	{"Citrus Celebration", "blood orange salad"}, {"Pasta Fortnight", "handmade orecchiette"},
	{"Mushroom Forage Weeks", "wild mushroom ragout"}, {"Lobster Season", "lobster rolls"},
}

var menuHabits = []menuEvent{
	{"Taco Tuesday", "fish tacos"}, {"Curry Night", "lamb rogan josh"}, {"Sunday Roast", "roast chicken"},
	{"Pizza Friday", "wood fired margherita"}, {"Dumpling Day", "pork and chive dumplings"},
	{"Soup Night", "French onion soup"}, {"Barbecue Saturday", "smoked brisket"},
	{"Vegan Wednesday", "chickpea and spinach stew"}, {"Seafood Thursday", "grilled sea bass"},
}

var floorOnce = []string{
	"rooftop observatory", "indoor climbing wall", "public library branch", "recording studio",
	"children's science museum", "ballet school", "dental clinic", "wine cellar and tasting room",
	"co-working space", "bowling alley", "architecture firm", "aquarium gallery",
	"pottery studio", "chess club lounge", "bonsai conservatory", "escape room venue",
	"planetarium", "boxing gym", "flower market", "jazz club",
}

var floorSpans = []string{
	"luxury hotel suites", "data center", "research laboratories", "private residences",
	"hospital wards", "university classrooms", "shopping mall", "television studios",
}

var floorHabits = []string{
	"sky garden", "emergency refuge area", "observation deck", "water tank room",
	"mechanical equipment floor", "staff cafeteria", "meditation room",
}

var urbanOnce = []string{
	"concert hall", "fire station", "public swimming pool", "botanical garden", "city hall",
	"children's hospital", "football stadium", "night market", "science museum", "police station",
	"central library", "opera house", "skate park", "farmers market hall", "aquarium",
	"community college", "ice rink", "zoo", "art museum", "tram depot",
}

var urbanSpans = []string{
	"tech park", "shopping district", "riverside promenade", "industrial estate",
	"university campus", "arts quarter", "medical district", "residential tower cluster",
}

var urbanHabits = []string{
	"bicycle rental station", "public restroom", "pocket park", "bus stop shelter",
	"electric car charging point", "drinking fountain", "recycling center",
}

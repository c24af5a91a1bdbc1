"""Name pools for Meridian: first names and surnames of staff, and project code names (each project its own).

Pure data, read through :mod:`hcrbench.synth.world_model.lexicon`.
"""

from __future__ import annotations

FIRST_NAMES = [
    "Priya", "Daniel", "Amara", "Lukas", "Mei", "Jonah", "Sofia", "Tariq", "Hannah", "Mateo", "Ines", "Kwame",
    "Elena", "Ravi", "Chloe", "Omar", "Freya", "Hiroshi", "Nadia", "Samuel", "Aisha", "Bruno", "Yuki", "Leah",
    "Marcus", "Zara", "Felix", "Ngozi", "Carmen", "Viktor", "Anika", "Diego", "Rosa", "Emeka", "Lena", "Arjun",
    "Maya", "Tomasz", "Isabel", "Kofi", "Greta", "Rahul", "Nora", "Pablo", "Sana", "Oskar", "Imani", "Jin",
    "Clara", "Dmitri", "Fatima", "Henrik", "Lucia", "Malik", "Astrid", "Wei", "Beatriz", "Idris", "Julia",
    "Kenji", "Olga", "Rafael", "Selin", "Theo", "Vera", "Yara", "Adrian", "Bianca", "Cyrus", "Dalia",
    # a larger pool (Meridian 5): a few hundred staff should not share seventy first names
    "Abena", "Ahmed", "Aiko", "Alejandro", "Aleksander", "Amir", "Ana", "Andrea", "Anton", "Ari", "Asha",
    "Ayodele", "Benedikt", "Bilal", "Camila", "Chiara", "Chidi", "Cristina", "Daria", "Dorothea", "Efua", "Elif",
    "Emil", "Esra", "Farid", "Femi", "Filipa", "Gabriel", "Georg", "Hana", "Hassan", "Ilya", "Ingrid", "Isaac",
    "Ivana", "Jakub", "Jamal", "Javier", "Jonas", "Karim", "Katarzyna", "Kavya", "Keiko", "Khalid", "Kirsten",
    "Laila", "Liang", "Lorenzo", "Ludmila", "Magnus", "Mariam", "Marta", "Mikael", "Miriam", "Nadim", "Naledi",
    "Nikhil", "Nils", "Noor", "Oluwaseun", "Paulina", "Pedro", "Petra", "Qiang", "Rania", "Rashid", "Reza",
    "Riya", "Ruth", "Sakura", "Salma", "Sami", "Santiago", "Shira", "Simone", "Siddharth", "Sven", "Tamar",
    "Tendai", "Thandiwe", "Tobias", "Ugo", "Valentina", "Vikram", "Wanjiru", "Xin", "Yasmin", "Yusuf", "Zainab",
    "Zoltan", "Adaeze", "Caspar", "Delphine", "Eitan", "Fiona", "Gustavo", "Halima", "Ismael", "Jovana", "Kaito",
    "Mirela", "Nikolai", "Orla", "Quentin", "Renata", "Soren", "Uma", "Vusi", "Wiktoria", "Ximena", "Yosef",
    "Zuzana", "Anders", "Bongani", "Celine", "Emre", "Goran", "Ibrahim", "Jana", "Kemal", "Lars", "Mbali",
    "Nasser", "Ottilie", "Paolo", "Rhea", "Sipho", "Tiago", "Uchenna", "Wojciech", "Yaw", "Zeynep",
]
LAST_NAMES = [
    "Raman", "Okafor", "Lindqvist", "Chen", "Moreau", "Haddad", "Novak", "Alvarez", "Kowalski", "Nakamura",
    "Mensah", "Fischer", "Gupta", "O'Brien", "Rossi", "Tanaka", "Adeyemi", "Petrov", "Silva", "Jensen",
    "Kaur", "Dubois", "Schneider", "Yilmaz", "Mwangi", "Larsen", "Ferreira", "Ivanova", "Park", "Bauer",
    "Costa", "Nguyen", "Hoffman", "Abara", "Sato", "Varga", "Delgado", "Brennan", "Iqbal", "Holm", "Castillo",
    "Weber", "Osei", "Mehta", "Kim", "Romero", "Eriksen", "Bakker", "Farah", "Wójcik", "Lambert", "Achebe",
    "Ortiz", "Sung", "Vogel", "Hughes", "Reyes", "Dimitrov", "Anand", "Marsh",
]

CODE_NAMES = [
    "Falcon", "Osprey", "Heron", "Kestrel", "Lynx", "Otter", "Cobalt", "Juniper", "Basalt", "Meridian Edge",
    "Halcyon", "Tundra", "Nimbus", "Quartz", "Sequoia", "Aurora", "Pelican", "Marlin", "Sable", "Ember",
    "Cinder", "Willow", "Granite", "Solstice", "Beacon", "Harbor", "Summit", "Vertex", "Zephyr", "Comet",
    "Orchid", "Tamarack", "Ridgeway", "Lantern", "Bramble", "Drift", "Alder", "Fjord", "Kite", "Mosaic",
    "Albatross", "Anvil", "Aspen", "Avalanche", "Badger", "Banyan", "Barracuda", "Bison", "Bluebell", "Boreal",
    "Bristlecone", "Caldera", "Capstan", "Caracal", "Chinook", "Condor", "Cormorant", "Coyote", "Crocus",
    "Cypress", "Dolomite", "Dunlin", "Egret", "Eider", "Elkhorn", "Estuary", "Fennel", "Firefly", "Foxglove",
    "Gannet", "Gazelle", "Geyser", "Hawthorn", "Hemlock", "Hickory", "Ibis", "Iguana", "Jackal", "Jacaranda",
    "Kingfisher", "Kodiak", "Lagoon", "Lapwing", "Larch", "Lichen", "Limestone", "Magnolia", "Magpie",
    "Malachite", "Mangrove", "Manta", "Marigold", "Meadowlark", "Merlin", "Mistral", "Moraine", "Narwhal",
    "Nautilus", "Nightjar", "Ocelot", "Oriole", "Pampas", "Panther", "Peregrine", "Petrel", "Pinyon", "Plover",
    "Puffin", "Quokka", "Saguaro", "Salamander", "Sandpiper", "Sapphire", "Scarab", "Sirocco", "Skylark",
    "Sorrel", "Sparrow", "Starling", "Stingray", "Sycamore", "Tanager", "Thistle", "Thrush", "Toucan",
    "Trillium", "Tupelo", "Turquoise", "Valerian", "Vireo", "Wagtail", "Walrus", "Warbler", "Wolverine", "Yucca",
]
# Past the single words, a code name is a qualifier and a landform ("Amber Crest"), every pair used once: no
# project is another's namesake ("Otter 2"). Neither list shares a word with CODE_NAMES.
CODE_QUALIFIERS = [
    "Amber", "Azure", "Copper", "Crimson", "Indigo", "Ivory", "Jade", "Scarlet", "Silver", "Slate", "Velvet",
    "Bronze", "Cerulean", "Emerald", "Russet", "Sienna", "Teal", "Ochre", "Pewter", "Ashen", "Frosted", "Lunar",
    "Stellar", "Coral", "Tawny", "Misty", "Dusky", "Gilded", "Hidden", "Quiet",
]
CODE_LANDFORMS = [
    "Crest", "Hollow", "Reach", "Spire", "Vale", "Mesa", "Glade", "Bluff", "Cove", "Dune", "Gorge", "Knoll",
    "Ledge", "Moor", "Shoal", "Tarn", "Thicket", "Cairn", "Fen", "Grove", "Inlet", "Isle", "Strand", "Butte",
    "Rill",
]


def code_name(p: int) -> str:
    """Project ``p``'s code name: a word of :data:`CODE_NAMES`, then a qualifier-landform pair (each pair once;
    the landform steps on with the qualifier, so neighbours differ in both words); past every pair (worlds of
    ~30,000 documents) a numbered word."""
    n, nq, nl = len(CODE_NAMES), len(CODE_QUALIFIERS), len(CODE_LANDFORMS)
    c = p - n
    if c < 0:
        return CODE_NAMES[p]
    if c < nq * nl:  # (c // nq + c) mod nl is one-to-one on each qualifier's column: gcd(nq + 1, nl) = 1
        return f"{CODE_QUALIFIERS[c % nq]} {CODE_LANDFORMS[(c // nq + c) % nl]}"
    return f"{CODE_NAMES[p % n]} {p // n + 1}"


ALL_CODE_NAMES = [code_name(p) for p in range(len(CODE_NAMES) + len(CODE_QUALIFIERS) * len(CODE_LANDFORMS))]

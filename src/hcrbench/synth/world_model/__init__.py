"""The world Meridian writes about: its staff, teams, projects, products, systems and policies, the year's events, the
document schedule (what each document is about) and the facts with where each is stated."""

"""The queries: one object per query category, the catalogue the generators read, the planner that fills a suite,
and the suite's labels (graded qrels, evidence, difficulty tiers, topics and leak-free splits)."""

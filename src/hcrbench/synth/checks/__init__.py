"""The checks of a written Meridian folder: ``describe`` and its parts, the world rules, the label audits, the blind
review sheet and the rules every body-text template keeps."""

"""The corpus text: each planned document rendered in its kind's form, with its filler, passing mentions and noise,
and the character span of every fact it states (sentence pools in ``pools/*.toml``)."""

"""Dataset adapters: the financial-summaries directory format (PENS and CNN/DailyMail adapters to come)."""

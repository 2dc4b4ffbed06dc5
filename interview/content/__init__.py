"""Reading the content that git holds under settings.CONTENT_DIR, as plain data and without the database."""

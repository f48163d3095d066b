"""A model's card (its README.md): written from the measured records, and read back for what the app shows."""

"""What the app's pages draw, whole, one call a view: each module reads the models, records and analyses a page
needs and returns frozen records ready to draw, so a page holds widgets and charts only."""

"""Data by name, as a user without this project's data folder gets it: public test sets through sacreBLEU
(``sacrebleu:wmt14``), training corpora by name, human-aligned gold sets (``gold:en-fr``), each fetched once, checked
and cached (:mod:`.fetch`); and any set of sentences to translate at once, named, in a folder, pasted or uploaded
(:mod:`.sentences`). Reads the files it fetches through :mod:`models.storage`."""

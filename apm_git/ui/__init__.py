"""`apm-git ui`: the local page to browse, review and curate the memory (docs/ui.md).

server.py serves it (uvicorn, the token, the Host and Origin checks), app.py holds the views,
reading.py reads what they show, pages.py draws the HTML (everything escaped), charts.py the SVG
of the memory over time.
"""

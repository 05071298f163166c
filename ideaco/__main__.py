from ideaco.cli.main import app

app()

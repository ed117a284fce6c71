"""What the terminal front ends draw with Rich: the sheet, the ranking and the rules as tables
(``render``), a review as tables (``review``). The line mode, the full-screen app and the
command line share them; the web draws its own page."""

"""What is made from rendered sections: slides and decks (HTML, PDF, PPTX), the lecture page, the
storyboard and the narration script."""

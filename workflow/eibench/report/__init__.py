"""Tables, figures and the numbers file that the manuscript reads."""

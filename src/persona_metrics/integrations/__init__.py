"""Glue between the metric families and the tools around them.

evaluate modules and their registration, training hooks and the Space apps. No score arithmetic lives here:
it calls the families' result objects.
"""

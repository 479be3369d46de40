"""Weights of the dice classifier, shipped as package data (see tools/train_classifier.py)."""

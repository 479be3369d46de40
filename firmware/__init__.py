"""The tower's body on gpiozero: solenoid, buttons, status light, simulated tower."""

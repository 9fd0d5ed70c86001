: # faults

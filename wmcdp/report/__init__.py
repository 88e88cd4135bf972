"""Reports: tables, plots and progress lines of runs and sweeps."""

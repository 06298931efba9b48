"""Human judgments, final labels and exports."""

"""Human judgments of augmented outputs (``paraspan review`` and ``paraspan judgments``).

:mod:`.tasks` builds review tasks with gold controls (Culkin et al. 2021 §6.1), hands them out to
annotators and records their ratings in the run store; :mod:`.app` serves them over HTTP;
:mod:`.stats` exports judgments and computes agreement (Fleiss' kappa, control acceptance).
"""

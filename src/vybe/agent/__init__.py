"""The runner behind `vybe chat`, on `vybe.Session`: the loop, its tools, skills, system
prompt and the offline consolidator."""

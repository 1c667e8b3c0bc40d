"""Which adapter takes a file and why: fixture territory (`territory`), the facts of a
payload (`facts`), and the named claim rules in order (`rules`)."""

"""What puts the modules together: start-up, the municipalities' initial data, the Implantação checklist."""

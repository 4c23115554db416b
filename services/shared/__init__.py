"""What every module shares: actor and permissions, audit log, parameters, numbers, events, registers (entities and their specs), municipalities, exports, input fields, clock, config, errors."""

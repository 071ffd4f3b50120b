enum SchemaCommand { static func run(_ a: [String], console: Console) -> ExitCode { .success } }

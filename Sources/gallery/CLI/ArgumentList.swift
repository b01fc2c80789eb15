/// The arguments of one command, taken apart flag by flag, with usage errors naming the problem.
struct ArgumentList {
    private var arguments: [String]
    private let usage: String

    init(_ arguments: [String], usage: String) {
        self.arguments = arguments
        self.usage = usage
    }

    /// Removes `--name` if present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = arguments.firstIndex(of: name) else { return false }
        arguments.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` and returns VALUE, nil when the option is absent.
    mutating func option(_ name: String) throws(CommandFailure) -> String? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { throw .usage("\(name) needs a value", usage) }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    mutating func intOption(_ name: String) throws(CommandFailure) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), value >= 0 else { throw .usage("\(name): \"\(text)\" is not an index", usage) }
        return value
    }

    mutating func doubleOption(_ name: String) throws(CommandFailure) -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw .usage("\(name): \"\(text)\" is not a positive number", usage)
        }
        return value
    }

    /// Removes and returns the first argument that is not an option; fails when there is none.
    mutating func positional(_ what: String) throws(CommandFailure) -> String {
        guard let value = optionalPositional() else { throw .usage("missing \(what)", usage) }
        return value
    }

    mutating func optionalPositional() -> String? {
        guard let index = arguments.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return arguments.remove(at: index)
    }

    /// Removes and returns every remaining argument that is not an option.
    mutating func remainingPositionals() -> [String] {
        var values: [String] = []
        while let value = optionalPositional() { values.append(value) }
        return values
    }

    /// Fails when arguments are left over.
    func expectEnd() throws(CommandFailure) {
        if let extra = arguments.first { throw .usage("unexpected argument \"\(extra)\"", usage) }
    }
}

import Foundation
import GalleryIO
import GalleryWire

/// The one argument parser of `gallery`: the arguments of one command, taken apart option by
/// option, in any order, with usage errors that name the problem.
///
/// An argument that starts with `--` is an option (`--name` or `--name VALUE`); any other is a
/// positional argument (`-` included, for standard input). Every command ends with `expectEnd`,
/// so that an unknown option or a stray argument is a usage error.
struct ArgumentList {
    private var arguments: [String]
    /// The command's name, for messages ("add needs FILE or URL").
    let command: String
    /// The command's usage, printed after a usage error.
    let usage: String

    init(_ arguments: [String], command: String, usage: String) {
        self.arguments = arguments
        self.command = command
        self.usage = usage
    }

    /// A usage error of this command.
    func failure(_ message: String) -> CommandFailure {
        .usage(message, usage)
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
        guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else { throw failure("\(name) needs a value") }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    /// Removes `--name [VALUE]`: nil when absent, `.some(nil)` when given without a value, the value
    /// when the next argument is one (`accepts` says whether it is, so that a positional argument
    /// after the option is not taken for its value).
    mutating func optionalValueOption(_ name: String, accepts: (String) -> Bool) -> String?? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--"), accepts(arguments[index + 1]) {
            let value = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
            return .some(value)
        }
        arguments.remove(at: index)
        return .some(nil)
    }

    /// Removes every `--name VALUE` (a repeatable option) and returns the values in order.
    mutating func options(_ name: String) throws(CommandFailure) -> [String] {
        var values: [String] = []
        while let value = try option(name) { values.append(value) }
        return values
    }

    /// `--name VALUE`, which must be given.
    mutating func requiredOption(_ name: String, _ what: String) throws(CommandFailure) -> String {
        guard let value = try option(name) else { throw failure("\(command) needs \(name) \(what)") }
        return value
    }

    /// `--name INDEX`: an index, 0 or more.
    mutating func intOption(_ name: String) throws(CommandFailure) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), value >= 0 else { throw failure("\(name): \"\(text)\" is not an index") }
        return value
    }

    /// `--name NUMBER`: a positive finite number.
    mutating func doubleOption(_ name: String) throws(CommandFailure) -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw failure("\(name): \"\(text)\" is not a positive number")
        }
        return value
    }

    /// Removes and returns the first positional argument; fails when there is none.
    mutating func positional(_ what: String) throws(CommandFailure) -> String {
        guard let value = optionalPositional() else { throw failure("missing \(what)") }
        return value
    }

    /// Removes and returns the first positional argument, if any.
    mutating func optionalPositional() -> String? {
        guard let index = arguments.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return arguments.remove(at: index)
    }

    /// Removes and returns every remaining positional argument; fails when there is none.
    mutating func positionals(_ what: String) throws(CommandFailure) -> [String] {
        var values: [String] = []
        while let value = optionalPositional() { values.append(value) }
        guard !values.isEmpty else { throw failure("\(command) needs \(what)") }
        return values
    }

    /// An item named by ID or place, parsed from a positional argument.
    mutating func item() throws(CommandFailure) -> ItemReference {
        try Self.item(try positional("ITEM"), failure)
    }

    /// Every remaining positional argument as an item; fails when there is none.
    mutating func items() throws(CommandFailure) -> [ItemReference] {
        var items: [ItemReference] = []
        for text in try positionals("ITEM") { items.append(try Self.item(text, failure)) }
        return items
    }

    /// The items of a batch command: every remaining positional argument, then, with `--stdin`,
    /// one per line of standard input (blank lines skipped); fails when none is named.
    mutating func itemList() throws(CommandFailure) -> [ItemReference] {
        let fromStandardInput = flag("--stdin")
        var items: [ItemReference] = []
        while let text = optionalPositional() { items.append(try Self.item(text, failure)) }
        if fromStandardInput {
            let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            // `\r\n` is one Character, a newline like `\n`.
            for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                guard let item = ItemReference(String(line)) ?? ItemReference(trimmed) else {
                    throw failure("standard input, line \(number + 1): \(ItemReference.problem(with: String(line)))")
                }
                items.append(item)
            }
        }
        guard !items.isEmpty else { throw failure(fromStandardInput ? "standard input names no ITEM" : "\(command) needs ITEM (or --stdin)") }
        return items
    }

    private static func item(_ text: String, _ failure: (String) -> CommandFailure) throws(CommandFailure) -> ItemReference {
        guard let item = ItemReference(text) else { throw failure(ItemReference.problem(with: text)) }
        return item
    }

    /// `HOST:PORT` (or `[IPv6]:PORT`) parsed from `text`.
    func endpoint(_ text: String, _ what: String) throws(CommandFailure) -> Endpoint {
        guard let endpoint = Endpoint(text) else { throw failure("\(what)\"\(text)\" is not HOST:PORT") }
        return endpoint
    }

    /// Fails when arguments are left over.
    func expectEnd() throws(CommandFailure) {
        guard let extra = arguments.first else { return }
        throw failure(extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument \"\(extra)\"")
    }
}

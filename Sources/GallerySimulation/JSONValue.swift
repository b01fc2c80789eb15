import Foundation

/// A parsed JSON value, for reading schedules with exact error messages.
package enum JSONValue: Hashable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses JSON text.
    package static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// A short name of the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Writes JSON text with keys in the order given, as the simulator's output contract shows them.
struct JSONWriter {
    private(set) var text = ""

    mutating func string(_ value: String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    mutating func raw(_ token: String) {
        text += token
    }

    /// Writes `{"k": v, ...}` with `body` called once per key in order.
    mutating func object<Key>(_ keys: [Key], name: (Key) -> String, _ body: (inout JSONWriter, Key) -> Void) {
        text += "{"
        for (offset, key) in keys.enumerated() {
            if offset > 0 { text += ", " }
            string(name(key))
            text += ": "
            body(&self, key)
        }
        text += "}"
    }

    /// Writes `[v, ...]` with `body` called once per element.
    mutating func array<Element>(_ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        text += "["
        for (offset, element) in elements.enumerated() {
            if offset > 0 { text += ", " }
            body(&self, element)
        }
        text += "]"
    }
}

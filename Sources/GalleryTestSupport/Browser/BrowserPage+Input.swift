/// Modifier keys held during an input event (DevTools bit values).
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Alt / Option.
    public static let alt = KeyModifiers(rawValue: 1)
    /// Control.
    public static let control = KeyModifiers(rawValue: 2)
    /// Meta / Command.
    public static let meta = KeyModifiers(rawValue: 4)
    /// Shift.
    public static let shift = KeyModifiers(rawValue: 8)
}

/// A key as `Input.dispatchKeyEvent` needs it: DOM `key`, DOM `code`, Windows virtual key code, and the
/// text it types (nil for keys that type nothing).
public struct Key: Hashable, Sendable {
    /// `KeyboardEvent.key`, such as "ArrowLeft" or "a".
    public var key: String
    /// `KeyboardEvent.code`, such as "ArrowLeft" or "KeyA".
    public var code: String
    /// The Windows virtual key code (which Chromium uses for default actions).
    public var keyCode: Int
    /// The text typed, if any.
    public var text: String?

    /// Makes a key from its parts.
    public init(key: String, code: String, keyCode: Int, text: String? = nil) {
        self.key = key
        self.code = code
        self.keyCode = keyCode
        self.text = text
    }

    public static let arrowLeft = Key(key: "ArrowLeft", code: "ArrowLeft", keyCode: 37)
    public static let arrowUp = Key(key: "ArrowUp", code: "ArrowUp", keyCode: 38)
    public static let arrowRight = Key(key: "ArrowRight", code: "ArrowRight", keyCode: 39)
    public static let arrowDown = Key(key: "ArrowDown", code: "ArrowDown", keyCode: 40)
    public static let enter = Key(key: "Enter", code: "Enter", keyCode: 13, text: "\r")
    public static let escape = Key(key: "Escape", code: "Escape", keyCode: 27)
    public static let tab = Key(key: "Tab", code: "Tab", keyCode: 9)
    public static let backspace = Key(key: "Backspace", code: "Backspace", keyCode: 8)
    public static let delete = Key(key: "Delete", code: "Delete", keyCode: 46)
    public static let space = Key(key: " ", code: "Space", keyCode: 32, text: " ")

    /// A letter or digit key ("a" -> KeyA, "7" -> Digit7).
    public static func character(_ character: Character) -> Key {
        let upper = String(character).uppercased()
        let code = character.isNumber ? "Digit\(upper)" : "Key\(upper)"
        return Key(key: String(character), code: code, keyCode: Int(upper.unicodeScalars.first?.value ?? 0),
                   text: String(character))
    }
}

extension BrowserPage {
    /// Sends one `Input.dispatchMouseEvent` in this page.
    public func mouse(_ type: String, at point: PagePoint, button: String = "none", buttons: Int = 0,
                      clickCount: Int = 0, modifiers: KeyModifiers = []) throws(BrowserError) {
        var params: [String: Any] = ["type": type, "x": point.x, "y": point.y, "button": button,
                                     "buttons": buttons, "modifiers": modifiers.rawValue]
        if clickCount > 0 { params["clickCount"] = clickCount }
        try send("Input.dispatchMouseEvent", params)
    }

    /// A left click at `point` (move, press, release).
    public func click(at point: PagePoint, modifiers: KeyModifiers = []) throws(BrowserError) {
        try mouse("mouseMoved", at: point, modifiers: modifiers)
        try mouse("mousePressed", at: point, button: "left", buttons: 1, clickCount: 1, modifiers: modifiers)
        try mouse("mouseReleased", at: point, button: "left", buttons: 0, clickCount: 1, modifiers: modifiers)
    }

    /// A left click on the centre of the first element matching `selector`.
    public func click(_ selector: String, modifiers: KeyModifiers = []) throws(BrowserError) {
        try click(at: center(of: selector), modifiers: modifiers)
    }

    /// Presses and releases `key` with `modifiers` held (keyDown with its text, then keyUp).
    public func press(_ key: Key, modifiers: KeyModifiers = []) throws(BrowserError) {
        var down: [String: Any] = ["type": key.text == nil || !modifiers.isDisjoint(with: [.alt, .control, .meta])
                                       ? "rawKeyDown" : "keyDown",
                                   "key": key.key, "code": key.code, "modifiers": modifiers.rawValue,
                                   "windowsVirtualKeyCode": key.keyCode, "nativeVirtualKeyCode": key.keyCode]
        if let text = key.text, modifiers.isDisjoint(with: [.alt, .control, .meta]) {
            down["text"] = text
            down["unmodifiedText"] = text
        }
        try send("Input.dispatchKeyEvent", down)
        try send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key.key, "code": key.code,
                                            "modifiers": modifiers.rawValue,
                                            "windowsVirtualKeyCode": key.keyCode, "nativeVirtualKeyCode": key.keyCode])
    }
}

// The player's options, kept in this browser (localStorage "bg.options") and applied live.

import { readJSON, writeJSON } from "./net.js";

export const CORNERS = ["bottom-right", "bottom-left", "top-right", "top-left"];

/** Colour presets: the board's colours (passed to Board.setOptions) and the page's accent. */
export const PRESETS = {
  classic: {
    label: "Classic",
    board: "#e9dcc0", frame: "#6b4f34", point0: "#b4553d", point1: "#3f5f4a",
    checker0: "#f7f3ea", checker1: "#2b2b2b", cube: "#fffdf7", accent: "#2f6f5e",
  },
  ocean: {
    label: "Ocean",
    board: "#dfe9ef", frame: "#2c4a5e", point0: "#4e86a8", point1: "#9bb7c7",
    checker0: "#fdfdfb", checker1: "#b2433b", cube: "#ffffff", accent: "#2c6e9a",
  },
  night: {
    label: "Night",
    board: "#26303a", frame: "#12171c", point0: "#6b7f93", point1: "#3f4b57",
    checker0: "#e8e3d6", checker1: "#c7663f", cube: "#f1ede2", accent: "#7fb0d6",
  },
  contrast: {
    label: "High contrast",
    board: "#ffffff", frame: "#000000", point0: "#000000", point1: "#7a7a7a",
    checker0: "#ffd400", checker1: "#0033cc", cube: "#ffffff", accent: "#000000",
  },
};

export const SPEEDS = { off: 0, fast: 150, normal: 300, slow: 600 };

const reducedMotion = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;

export const DEFAULTS = {
  corner: "bottom-right",
  switchSides: false,
  autoRoll: false,
  autoForced: false,
  autoBearOff: false,
  speed: reducedMotion ? "off" : "normal",
  sounds: false,
  colors: "classic",
};

export function loadOptions() {
  const stored = readJSON("bg.options", {});
  const options = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS)) {
    if (stored && typeof stored[key] === typeof DEFAULTS[key]) options[key] = stored[key];
  }
  if (!CORNERS.includes(options.corner)) options.corner = DEFAULTS.corner;
  if (!(options.speed in SPEEDS)) options.speed = DEFAULTS.speed;
  if (!(options.colors in PRESETS)) options.colors = DEFAULTS.colors;
  return options;
}

export function saveOptions(options) {
  writeJSON("bg.options", options);
}

/** The corner the home board is drawn in for game `gameNumber` (R46: with switchSides the
 *  board is mirrored left to right after every game). */
export function cornerFor(options, gameNumber) {
  const corner = options.corner;
  if (!options.switchSides || gameNumber % 2 === 1) return corner;
  return corner.endsWith("right") ? corner.replace("right", "left") : corner.replace("left", "right");
}

/** Board.setOptions's argument for these options in game `gameNumber`. */
export function boardOptions(options, gameNumber) {
  const { label, accent, ...colors } = PRESETS[options.colors];
  return {
    corner: cornerFor(options, gameNumber),
    colors,
    animationMs: reducedMotion ? 0 : SPEEDS[options.speed],
    sounds: options.sounds,
    autoBearOff: options.autoBearOff,
    highContrast: options.colors === "contrast",
  };
}

/** Page colours follow the preset (data-theme on <html>). */
export function applyTheme(options) {
  document.documentElement.dataset.theme = options.colors;
}

/** Fill the options form `form` (inputs named after the option keys) and call
 *  onChange(options) after every change, which is already saved. */
export function bindOptionsForm(form, onChange) {
  const options = loadOptions();
  const corner = form.elements.namedItem("corner");
  const colors = form.elements.namedItem("colors");
  if (colors && colors.options.length === 0) {
    for (const [key, preset] of Object.entries(PRESETS)) colors.add(new Option(preset.label, key));
  }
  for (const [key, value] of Object.entries(options)) {
    const field = form.elements.namedItem(key);
    if (!field) continue;
    if (field.type === "checkbox") field.checked = value;
    else field.value = value;
  }
  if (corner instanceof RadioNodeList) corner.value = options.corner;
  form.addEventListener("change", () => {
    for (const key of Object.keys(DEFAULTS)) {
      const field = form.elements.namedItem(key);
      if (!field) continue;
      options[key] = field.type === "checkbox" ? field.checked : field.value;
    }
    saveOptions(options);
    applyTheme(options);
    onChange(options);
  });
  applyTheme(options);
  return options;
}

/**
 * Non-English transcript text, honestly labelled.
 *
 * No Spanish, German or French corpus is installed, and machine-translating
 * (or relabelling) Brown sentences would be a lie about the language. So a
 * non-English track is word salad drawn from a short list of very common
 * words of that language, sampled with Zipf-like weights by rank: the
 * spelling, diacritics (ñ, ü, ß, é, œ …) and word frequencies are real, the
 * grammar and meaning are not. That is what the search stack needs from such
 * tracks: realistic tokens for the diacritic-folding tokenizer and a
 * language code to filter on. Lists were written from general knowledge of
 * frequency lists, most frequent first; proper nouns are left out.
 */
import type { Random } from "./random.js";
import type { TokenBuffer } from "./token-buffer.js";
import { buildVocabulary, type SentenceSource } from "./vocabulary.js";

export interface ForeignLanguage {
  /** BCP 47 code as YouTube reports it. */
  readonly code: string;
  /** Language name in English, as YouTube's track list shows it. */
  readonly name: string;
  readonly source: SentenceSource;
}

const SPANISH = `de la que el en y a los se del las un por con no una su para es al lo como más o pero sus le ha me
si sin sobre este ya entre cuando todo esta ser son dos también fue había era muy años hasta desde está mi porque qué
sólo han yo hay vez puede todos así nos ni parte tiene él uno donde bien tiempo mismo ese ahora cada vida otro después
te otros aunque esa eso hace otra gobierno tan durante siempre día tanto ella tres sí dijo sido gran país según menos
mundo año antes estado contra sino forma caso nada hacer general estaba poco estos mayor ante unos les algo hacia casa
ellos ayer hecho primera mucho mientras además quien momento millones esto hombre están pues hoy lugar trabajo otras
mejor nuevo decir algunos entonces todas días debe política cómo casi toda tal luego pasado medio va estas sea tenía
nunca poder aquí ver veces embargo grupo cuenta pueden tienen misma nueva cual fueron mujer frente tras cosas fin
ciudad manera tener sistema será historia muchos tipo cuatro dentro punto dice ello cualquier noche aún agua parece
haber situación fuera bajo grandes nuestro ejemplo acuerdo usted hizo nadie países horas posible tarde ley importante
guerra desarrollo proceso realidad sentido lado cambio allí mano número sociedad centro padre gente final relación
cuerpo obra incluso través último madre modo problema cinco información ojos muerte nombre público siglo todavía
meses mañana nosotros hora pueblo dar derecho verdad podría sería junto cabeza tierra equipo segundo cierto manos
nivel familia largo llegar propio cosa seguridad semana señor voz paso luz claro orden buena quiere programa palabras
empresa libro igual persona creo tengo fuerza único acción amor puerta zona calle música campo razón niños dinero
servicio hijo estoy hablar minutos camino quién fondo papel idea especial libertad espacio cultura arte paz imagen
datos interés movimiento bueno niño difícil joven futuro pronto soy cerca educación valor aire siguiente comunidad
calidad corazón canción cocina receta jardín pequeño rápido fácil mirar pensar conocer`;

// German nouns are capitalized in running text; the list keeps their real spelling.
const GERMAN = `der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus
er hat dass sie nach wird bei einer um am sind noch wie einem über einen so zum war haben nur oder aber vor zur bis mehr
durch man sein wurde sei Prozent hatte kann gegen vom können schon wenn habe seine ihre dann unter wir soll ich eines
Jahr zwei Jahren diese dieser wieder keine seiner worden will zwischen immer was sagte gibt alle diesem seit muss
wurden beim doch jetzt waren drei Jahre neue neuen damit bereits da ihr seinen müssen ab ihrer ihren sondern selbst
ersten nun etwa heute weil ihm Menschen anderen werde ihn Zeit uns hatten kein liegt gut bisher ohne viel sehr denn
Teil wo sagt Tag etwas geht Leben Welt Stadt Ende Land Frau Kinder Arbeit Geld Frage Haus Weg Hand macht gestern
morgen groß klein lange letzten Millionen ganz alles nichts hier dort kommt kommen sehen wissen sagen machen gehen
stehen lassen finden bleiben geben nehmen halten bringen denken spielen zeigen führen sprechen arbeiten beginnen fast
weniger schnell wichtig möglich eigenen großen zusammen dabei deshalb trotzdem während allerdings außerdem natürlich
wirklich vielleicht schön Straße Schule Wasser Woche Stunde Abend Nacht Familie Freund Freunde Recht Politik
Regierung Wirtschaft Unternehmen Geschichte Beispiel Problem Probleme Möglichkeit Entwicklung Gesellschaft Zukunft
Kraft Grund Seite Bild Form Idee Ziel Punkt größer höher älter jünger glauben fühlen hören lesen schreiben öffnen
schließen würde könnte hätte wäre dürfen mögen wollen sollen Küche Rezept Garten Musik Lied Spiel Auto Reise Straßen
Bücher Tür Fenster Kopf Herz Augen Mädchen Junge Mutter Vater Brüder Schwester Wetter Sonne Regen fünf sechs zehn`;

const FRENCH = `de la le et les des en un du une que est pour qui dans a par plus pas au sur ne se ce il sont avec ou son
été aux mais nous sa ont elle ses comme je tout on aussi leur bien peut même cette fait deux entre ces dont être après
ans faire sans autres encore très elles lui depuis où temps tous y si peu avoir dit moins pays premier donc avant monde
années jour aujourd'hui ainsi année homme femme enfants vie travail ville maison eau chose choses rien toujours jamais
trop beaucoup petit grand grande nouveau nouvelle dernier première vers chez sous contre pendant selon alors parce quand
comment pourquoi quelque chaque plusieurs autre vrai bon bonne mauvais politique gouvernement histoire question problème
exemple partie place moment fois heure heures semaine soir nuit matin main tête yeux cœur coup raison idée guerre
pouvoir vouloir savoir voir venir prendre mettre donner trouver parler aimer penser croire rester laisser passer porter
sembler tenir demander comprendre connaître devenir vivre écrire lire suivre entendre ouvrir était avait serait
pourrait doit faut veut sais crois voilà déjà là ici peut-être français société façon début côté père mère frère sœur
école livre musique chanson cuisine recette jardin voiture voyage rue porte fenêtre soleil pluie hiver été printemps
automne âge enfant fille garçon ami amis état fin raison manière besoin genre mot mots pièce réponse théâtre forêt
mer île général général spécial différent facile rapide lent simple réel prêt bientôt longtemps vraiment ensemble`;

// Most weight on the most frequent words, as in real text (rank r drawn with probability ∝ 1/(r+1)).
function zipfRank(random: Random, size: number): number {
  return Math.min(size - 1, Math.floor(Math.exp(random.float() * Math.log(size + 1))) - 1);
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A sentence source over one word list: ids 1-3 are punctuation, then the words, then their capitalized forms. */
export function wordListSource(list: string): SentenceSource {
  const words = [...new Set(list.split(/\s+/).filter((word) => word.length > 0))];
  const tokens = ["", ".", ",", "?", ...words, ...words.map(capitalize)];
  const first = 4;
  const capitalOffset = words.length;
  // Speech recognition does not capitalize sentence starts, but keeps German nouns capitalized: speak the list form.
  const spokenOverrides = new Map(words.map((_, k) => [first + capitalOffset + k, first + k]));
  const vocabulary = buildVocabulary(tokens, { lowerCaseSpoken: false, spokenOverrides });
  return {
    vocabulary,
    generateSentence(random: Random, out: TokenBuffer): number {
      const length = random.range(5, 16);
      out.reserve(length * 2 + 1);
      out.ids[out.length++] = first + capitalOffset + zipfRank(random, words.length);
      for (let i = 1; i < length; i++) {
        if (i > 2 && i < length - 2 && random.chance(0.08)) out.ids[out.length++] = 2;
        out.ids[out.length++] = first + zipfRank(random, words.length);
      }
      out.ids[out.length++] = random.chance(0.12) ? 3 : 1;
      return length;
    },
  };
}

export const FOREIGN_LANGUAGES: readonly ForeignLanguage[] = [
  { code: "es", name: "Spanish", source: wordListSource(SPANISH) },
  { code: "de", name: "German", source: wordListSource(GERMAN) },
  { code: "fr", name: "French", source: wordListSource(FRENCH) },
];

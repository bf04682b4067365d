"""Orders to a model recognised by what they are made of, not by how they are phrased.

The rules (`firewall_rules`) know phrasings; an attacker writes new ones. Every order to a model
is still built from a few kinds of parts, in any language: it speaks to the model ("AI agents:",
"the assistant must", "when you read this"), it drops the model's instructions (a verb of
ignoring + a word for instructions + which ones), it moves secrets (a credential + a verb of
sending + a destination), it runs code of a dangerous shape, it asks for secrecy ("without
asking", "don't mention it"), it gives the model a persona, or it poses as the system or a
tool. One part alone is developer prose ("ignore previous build artifacts", "send the token in
a header", "the agent loop stops after ten steps"); several in one sentence are an order.

So each sentence (of the folded view, or of a decoded one) gets a score: the weights of the cue
classes it holds, each counted once, plus half the weight of a secret or destination named in
another sentence of the same text (a numbered list reads the secret in step 1 and sends "it" in
step 3). A sentence that reaches `THRESHOLD` and holds an act (or speaks to the model) is
removed whole. A sentence that describes attacks ("attackers may try to...", "for example")
and does not speak to the model loses `DESCRIBED`.

Words are matched after lower-casing, per token: English words whole (a commit says "merging",
an order says "merge"), other languages by stem; scripts written without spaces by substring.
Shapes (URLs, secret paths, dangerous shell, role tags) are small regexes tried only when a
character they need is in the text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from . import firewall_languages as languages
from .firewall_lexicon import LazyPattern, any_of, lazy
from .firewall_rules import install_line, line_above

THRESHOLD = 3.0
DESCRIBED = 2.0

# class -> weight; each class counts once per sentence
WEIGHTS = {
    "address": 2.0,  # the model spoken to, or told what it must do
    "override": 1.0,  # ignore / forget / bypass
    "orders": 1.0,  # instructions, prompt, rules
    "which": 0.5,  # previous, above, all, the system's
    "secret": 1.0,  # credentials, keys, tokens
    "send": 1.0,  # send, upload, post
    "dest": 1.0,  # a URL, an address, "the attacker"
    "reveal": 0.5,  # print, show, output
    "shell": 2.5,  # a dangerous command by its shape
    "you": 0.5,  # the reader as "you"
    "secrecy": 1.5,  # without asking, don't tell, quietly
    "persona": 2.0,  # pretend, act as, no restrictions
    "authority": 1.0,  # system, operator, tool output posing as such
    "grant": 1.0,  # approve, merge, grant, disable checks
    "must": 0.5,  # an obligation
    "exec": 0.5,  # run, execute
    "named": 0.5,  # a model named, not spoken to
    "complete": 0.5,  # a verb of ignoring with a word for orders as its object
    "install": -1.0,  # an installation step: docs show download-and-run lines
    "disguised": 1.5,  # written in look-alike letters or encoded: honest text is not
    "turn": 2.0,  # the text of a chat turn a role tag opened (`<|im_start|>user`)
    "leak": 1.0,  # a link or image whose URL is a slot for a secret
    "weaken": 1.5,  # a safeguard removed: MFA, signatures, TLS checks, code owners
    "plan": 1.5,  # a step that hides another step's harm, or is hidden by another step
    "vocative": 1.0,  # a sentence opened by a label or vocative naming the model (`_vocative`)
    "concealed": 1.5,  # a step of orders one of which hides them from the user (`_concealed`)
}
# classes that make a sentence an act (with "address", which makes it an order to the model)
ACTS = frozenset(
    {"override", "send", "reveal", "shell", "secrecy", "persona", "grant", "exec", "weaken"}
)
# acts that harm whoever runs them; a plan that hides one is an order whatever its wording
HARM = frozenset({"weaken", "shell", "leak"})

_W = {
    "address": """assistant assistants agent agents llm llms chatgpt copilot claude gpt gemini
        chatbot ai ki ia ии""",
    "override": """ignore disregard forget override bypass discard overrule circumvent
        neglect revoke revoked rescind rescinded suspend suspended nullify nullified waive
        waived""",
    "orders": """instructions instruction prompt prompts guidelines guardrails directives
        directive policies policy restrictions constraints programming safeguards filters
        rules rule orders guidance preamble""",
    "which": """previous prior above earlier preceding original initial all any every system
        existing former alle toutes todas todos tutte""",
    "secret": """credentials credential password passwords passwd secret secrets apikey api_key
        cookie cookies passphrase id_rsa dotenv aws_secret_access_key aws_access_key_id
        github_token npm_token""",
    "send": """send post upload transmit forward leak exfiltrate exfil paste
        publish beacon copy share include embed append attach""",
    "dest": """webhook pastebin requestbin ngrok gist attacker""",
    "reveal": """print reveal output show display dump echo cat list repeat recite disclose
        expose read""",
    "you": """you your yourself you're youre du dich dein deine deinen vous votre vos tu
        ton tes usted tus tuo tua você vocês""",
    "exec": """run execute exec eval""",
    "secrecy": """secretly quietly silently covertly unnoticed nobody""",
    "persona": """pretend pretending roleplay role-play jailbreak jailbroken unrestricted
        unfiltered uncensored persona impersonate unshackled""",
    "grant": """approve merge grant granted authorize authorise disable delete deploy push
        publish lgtm wipe erase destroy purge nuke truncate""",
    "must": """must should shall required mandatory""",
}
_PHRASES = {
    "address": """the model,when you read this,when you see this,if you are an,after you read this,
        once you read this,if you read this,as you read this,as an ai,
        ai model,language model,coding agent,ai agent,ai assistant,to the agent,to the assistant,
        note to,message to,attention ai,hey ai,dear ai""",
    "override": """do not follow,don't follow,stop following,no longer follow,pay no attention,
        set aside,throw away,instead of your,counts any more,count any more,counts anymore,
        no longer counts,no longer count,were a mistake,was a mistake,proceed as if,
        non tenere conto,non tener conto,no tengas en cuenta,ne tiens pas compte,
        ne tenez pas compte""",
    "orders": """system prompt,system message,your task,your job,your goal,your mission,
        you were told,you were given,you were instructed,you were configured,you were taught,
        you have been told,you have been given,you've been told""",
    "secret": """api key,private key,access key,secret key,ssh key,env file,environment variables,
        env vars,session cookie,auth token,bearer token,deploy key,signing key,gpg key,pgp key,
        private keys,secrets file,access token,personal access token,refresh token,session token,
        oauth token,real values,actual values,real secrets,actual secrets,database dump,db dump,
        production data,customer data""",
    "dest": """the attacker,external server,remote server,this url,this address,this endpoint,
        the following url,this issue,this pr,this thread,commit message,your reply,your response,
        your answer,next reply,next response,pr description,public repo,public repository,
        public gist,a comment,when you answer,when you reply,when you respond,html comment,
        in the summary,in the reply,the same reply,in the response""",
    "reveal": """tell me,give me,show me,send me,contents of,content of,the value of,
        the values of,reply with,respond with,answer with,reply only,respond only""",
    # "email" as a verb; as a noun it is a field ("EMAIL": "foo@example.org")
    "send": """email the,email it,email them,email your,email all,e-mail the,e-mail it""",
    "secrecy": """without asking,without confirmation,without confirming,without telling,
        without review,without approval,without checking,do not tell,don't tell,do not mention,
        don't mention,do not inform,don't inform,do not ask,don't ask,never mention,never tell,
        no one notices,nobody notices,nobody will notice,at all costs,no matter what,
        before anything else,do not report,don't report,keep this secret,keep it secret,
        not tell the user,not mention this,keep it out of,keep this out of,leave it out of,
        leave this out of,out of the summary,out of the changelog,out of the pr,
        out of the commit,out of the release notes,without reading,without looking,
        without mentioning,without informing,without notifying,without tests,without testing,
        without running,say nothing,tell no one,mention nothing,report success,
        never mentions,never mention,never refuses,never refuse,no need to mention,
        no need to bring,no need to explain,need not mention,without commenting,
        need to appear in,out of your summary,out of your reply,out of your chat,
        out of your change,do not cite this,don't cite this,is not distracted""",
    "persona": """act as,you are now,you're now,from now on,developer mode,god mode,
        no restrictions,no rules,no limits,no filters,no guidelines,stay in character,
        without restrictions,without rules,without limits,without filters,
        let's play,lets play,play a game,a game where,no longer an,no longer a,you are a root,
        imagine you are,imagine you're,play the part,play the role,take on the role,you play,
        you are playing,respond as,
        assume the role,in the role of,you will play,a story in which,a story where""",
    "authority": """tool output,tool result,function result,the user has,user has approved,
        user has authorized,user authorized,user approved,owner has,maintainers have,
        new instruction,new instructions,updated instructions,high priority,priority override,
        security team,next time you,every time you,for every future,for all future,
        in every future,in future sessions,in all future,every future,you are cleared,
        you are authorized,you are authorised,you are permitted,you have permission,
        keep this in memory,remember this for,from this commit on,from this point on,
        has approved,have approved,has pre-approved,have pre-approved,pre-approved,preapproved,
        has authorized,has authorised,have authorized,have authorised,authorizes the,
        authorises the,authorized you,authorised you,authorized the,authorised the,has confirmed,
        have confirmed,has delegated,have delegated,delegated to,permission granted,
        granted you,granted the,granted this,has granted,have granted,may now,now allowed,
        has waived,have waived,waived""",
    "grant": """push directly,straight to production,directly to production,to production,
        skip the test,skip the security,skip security,skip the review,branch protection,
        write access,mark as passed,mark as passing,mark it as,mark the,skip the tests,skip tests,
        skip review,skip the review,force push,push to main,push to master,commit and push,
        merge it,approve it,approve this,grant access,full access,shell access,admin access,
        rm -rf,disable the,turn off the,drop table,drop database,drop the,root access""",
    "must": """need to,have to,has to,is required,are required,are instructed,is instructed""",
    # the reader told what to do to someone else, or cast in a part
    "you": """not ask the user,don't ask the user,without asking the user,not tell the user,
        play the part,play the role,take on the role,assume the role""",
}

# other languages, by stem (must start a word); what each stem is
_STEMS = {
    "address": """assistent asistente assistente assistant agente agent modell modelo modello
        modèle модел ассистент агент асистент модел""",
    "override": """ignorier vergiss vergesst missacht ignorez ignorer ignora ignorar ignorate
        oublie olvid descart esquec esqueç dimentic negeer vergeet игнорир проигнорир забуд
        забыть ігнору zignoruj ignoruj zapomnij abaikan lupakan unut yoksay puuza sahau""",
    "orders": """anweisung instruktion vorgabe richtlinie regeln consigne règle directive
        instruccion instrucción reglas indicacion instruç regras istruzion regole
        direttiv instructie regels polece instrukcj zasad инструкци указани правил директив
        промпт інструкці talimat kural instruksi aturan maagizo maelekezo sheria""",
    "which": """vorherig bisherig obig früher ursprünglich précédent antérieur anterior previa
        previo precedent eerder vorige poprzedni предыдущ прежн ранее попередн önceki
        sebelumnya awali""",
    "secret": """passwort kennwort zugangsdat schlüssel geheim identifiant contraseñ credencial
        clave senha credenciais chave credenzial chiave пароль ключ токен учётн учетн
        секрет hasło klucz şifre kata sandi nenosiri""",
    "send": """senden schick übermittel übertrag hochlad envoie envoy transmet envía
        envia enviar mande invia inviare carica отправ перешли пошли загруз wyślij prześlij
        gönder kirim""",
    "reveal": """zeig ausgeb affiche révèle revele montre muestra revela imprime mostra
        rivela stampa покажи выведи раскрой покаж pokaż wypisz göster tampilkan""",
    "you": """ты тебя твой твои вы ваш ваши""",
    "must": """musst müssen sollst devez doit debes debe devi deve deves должен должны
        обязан musisz""",
    "secrecy": """heimlich unbemerkt discrètement secrètement secretamente silenciosamente
        segretamente тайно незаметно nessuno nadie niemandem ninguém""",
    "grant": """genehmig approuv fusionn aprueb одобр смерж""",
}
# scripts written without spaces (Chinese, Japanese, Korean, Thai): substrings
_GLUED = (
    ("address", "ผู้ช่วย"),
    ("override", "ละเว้น เพิกเฉย ลืม ไม่ต้องสนใจ"),
    ("orders", "คำสั่ง คำแนะนำ กฎ"),
    ("which", "ก่อนหน้า ทั้งหมด ข้างต้น"),
    *{
        "address": "助手 人工智能 模型 智能体 代理 アシスタント エージェント モデル 에이전트 어시스턴트 모델",
        "override": "忽略 无视 無視 忽视 忽視 忘记 忘記 忘掉 不要理 别管 不要遵守 忘れ 무시 잊어",
        "orders": "指令 指示 规则 規則 提示词 提示詞 说明 ルール プロンプト 지시 지침 규칙 프롬프트",
        "which": "之前 以前 上面 以上 先前 所有 全部 系统 系統 これまで すべて 全て 上記 システム 이전 모든 시스템",
        "secret": "密码 密碼 密钥 密鑰 凭证 憑證 令牌 秘钥 パスワード 認証情報 秘密鍵 トークン 비밀번호 토큰 자격",
        "send": "发送 發送 发到 發到 发给 上传 上傳 送信 送って アップロード 보내 전송 업로드",
        "reveal": "显示 顯示 输出 輸出 打印 泄露 表示して 出力 보여 출력",
        "you": "你 您 あなた 너 당신",
        "must": "必须 必須 务必 務必 一定要 しなければ 必ず 해야",
        "secrecy": "悄悄 偷偷 不要告诉 不要告訴 秘密裏 こっそり 몰래",
        "persona": "扮演 假装 假裝 ふり 역할 として振る舞 制限のない 制限なし 没有限制 无限制 不受限制 제한 없는",
        "grant": "批准 合并 合併 承認 マージ 승인 병합",
    }.items(),
)


# scripts written without spaces between words (Thai, Lao, Burmese, Khmer, kana, CJK, Hangul)
_NO_SPACE_RANGES = (
    (0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x9FFF),
    (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
)  # fmt: skip


def _glued_script(word: str) -> bool:
    """A word of a script written without spaces."""
    cp = ord(word[0])
    return cp >= 0x0E00 and any(lo <= cp <= hi for lo, hi in _NO_SPACE_RANGES)


# the further languages' words (`firewall_languages`): one word each, by stem; or, in a script
# written without spaces, by substring. Phrases of several words are the lexicon's.
_MORE = {
    cls: [w for w in languages.entries(cls) if " " not in w]
    for cls in ("address", "override", "orders", "which", "secret", "send", "reveal", "you",
                "must", "secrecy", "grant", "exec")
}  # fmt: skip
_STEMS = {
    **_STEMS,
    **{
        cls: " ".join([_STEMS.get(cls, ""), *(w for w in ws if not _glued_script(w))])
        for cls, ws in _MORE.items()
    },
}
_GLUED = (
    *_GLUED,
    *((cls, " ".join(w for w in ws if _glued_script(w))) for cls, ws in _MORE.items()),
)


def _words(spec: dict[str, str], sep: str | None = None) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for cls, words in spec.items():
        for w in words.split(sep) if sep else words.split():
            w = w.strip()
            if w:
                out.setdefault(w, set()).add(cls)
    return {w: frozenset(c) for w, c in out.items()}


@dataclass(frozen=True)
class _Tables:
    words: dict[str, frozenset[str]]  # English words, whole
    phrases: dict[str, frozenset[str]]  # two to four words
    stems: dict[str, frozenset[str]]  # other languages: a word starts with one
    glued: tuple[tuple[str, str], ...]  # scripts without spaces: (substring, class)
    stem3: frozenset[str]  # the first three letters of every stem: most words have none
    stem_lengths: tuple[int, ...]  # longest first
    phrase_first: frozenset[str]  # the first word of every phrase
    # first word -> (phrase, its words, its classes)
    by_first: dict[str, tuple[tuple[str, frozenset[str], frozenset[str]], ...]]


@functools.cache
def _tables() -> _Tables:
    """Built on the first text that needs them: most served strings never do."""
    phrases = _words(_PHRASES, ",")
    stems = _words(_STEMS)
    by_first: dict[str, list[tuple[str, frozenset[str], frozenset[str]]]] = {}
    for p, c in phrases.items():  # one pass: each first word's phrases in the table's order
        by_first.setdefault(p.split(None, 1)[0], []).append((p, frozenset(_TOKEN.findall(p)), c))
    return _Tables(
        words=_words(_W),
        phrases=phrases,
        stems=stems,
        glued=tuple((w, cls) for cls, ws in _GLUED for w in ws.split()),
        stem3=frozenset(w[:3] for w in stems),
        stem_lengths=tuple(sorted({len(w) for w in stems}, reverse=True)),
        phrase_first=frozenset(by_first),
        by_first={first: tuple(group) for first, group in by_first.items()},
    )


def _stem_classes(tok: str, t: _Tables) -> frozenset[str]:
    if tok[:3] not in t.stem3:
        return frozenset()
    for k in t.stem_lengths:
        if k <= len(tok):
            hit = t.stems.get(tok[:k])
            if hit:
                return hit
    return frozenset()


_TOKEN = lazy(r"[^\W_]+(?:['’-][^\W_]+)*")
# where a sentence ends: a stop before a space, a line break, CJK full stops
_SENTENCE = lazy(
    r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\.\.\.)\s+|\n+|(?<=[。！？])"
)
_NO_SPACES = lazy("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _NO_SPACE_RANGES) + "]")

# shapes
_DEST = lazy(
    r"(?:https?|ftp)://|\b[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\bnc\s+-|/dev/tcp/",
    re.I,
)
_SECRET_SHAPE = lazy(
    r"~/\.|\$home/\.|\.aws\b|\.ssh\b|\bid_(?:rsa|ed25519|ecdsa)\b|(?<![\w/])\.env\b|\.npmrc|"
    r"\.pypirc|\.netrc|/etc/(?:passwd|shadow)|\$\{?[a-z0-9_]{0,40}(?:token|secret|key|password|pass)"
    r"[a-z0-9_]{0,40}\}?|\bprintenv\b|\benv\s*\|",
    re.I,
)
# a download piped into a shell: what install docs show (`firewall_rules.install_line`)
_PIPED = r"\b(?:curl|wget|iwr|irm)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
_PIPED_DOWNLOAD = lazy(_PIPED)
_SHELL = lazy(
    _PIPED + "|"
    r"\b(?:curl|wget)\b[^\n]{0,200}(?:&&|;)\s*(?:sudo\s+)?(?:ba|z)?sh\s|"
    r"\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(|"
    r"\brm\s+-[a-z]*[rf][a-z]*\s+(?:-[a-z]+\s+)?(?:/|~|\$home|\*|\.\s|\.$)|"
    r"\bbase64\s+(?:-d|--decode|-D)\b[^\n]{0,40}\|\s*(?:ba|z)?sh\b|"
    r"/dev/tcp/|\bnc\s+(?:-\w+\s+)*-e\b|\bmkfifo\b|"
    r"\b(?:iex|invoke-expression)\b|\bdownloadstring\b|"
    r"\beval\s*\(\s*(?:base64|atob|\$\()|"
    r"\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node)\b|"
    r"\b(?:exec|eval)\s*\([^\n]{0,80}(?:urlopen|requests\.get|httpx\.get|fetch)\b|"
    r"\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)|\bchmod\s+\+x\b[^\n]{0,80}(?:&&|;)\s*(?:\./|/)|"
    # a reverse shell; a host name built from a command's output (the lookup carries the data)
    r"\.connect\(\s*\(|\bos\.dup2\(|[\"']/bin/(?:ba)?sh[\"']\s*,\s*[\"']-i|"
    r"\$\([^)\n]{1,80}\)\.[\w-]+\.[\w.-]+",
    re.I,
)
_AUTHORITY_SHAPE = lazy(
    r"</?\s*(?:system|tool_result|tool_output|function_results?|tool_response|admin|operator|"
    r"(?:start|end)_of_turn|user|assistant)\b|"
    r"\[(?:[\w ]{0,20}\s)?(?:system|admin|operator|tool|server|mcp)\s+(?:notice|message|note|"
    r"update|alert|output|result|response|override)s?\s*\]|<\|[a-z_]+\|>|"
    r"^\W{0,6}(?:system|operator|admin|instructions?|observation|thought|action)\s*:|"
    r"^\W{0,6}(?:system|operator|admin)\s+(?:notice|message|note|update|alert|override)s?\s*:|"
    r"[\"'](?:instructions?|directive|system_?prompt|admin_?note)[\"']\s*:",
    re.I | re.M,
)
# a tag naming a role (`<system>`, `<instructions>`, `<admin_message>`, `<developer_note>`);
# a bare `<operator>` or `<root>` is a placeholder or an XML root
_ROLE = r"(?:system|admin|operator|instructions?|developer|owner|root)"
_ROLE_TAG = r"(?:system|instructions?|[\w-]+_" + _ROLE + "|" + _ROLE + r"_[\w-]+)"
# a role tag that opens a turn: the next sentence is the turn's text
_TURN = lazy(
    r"<\|(?:im_start\|>\s*)?(?:system|user|assistant)?|<start_of_turn>|\[inst\]|<<sys>>|"
    r"<" + _ROLE_TAG + ">",
    re.I,
)
# a turn whose text is on the same line: a transcript label or a role tag before the words
_TURN_HERE = lazy(
    r"\W{0,6}(?:thought|action|human|user|system|operator)\s*:\s*[^\W\d]|"
    r"\W{0,6}(?:assistant|ai|agent|model)\s*\([^)\n]{1,30}\)\s*:\s*[^\W\d]|"
    r"\[[^\]\n]{0,40}\b(?:user|system|tool|assistant|admin|operator)\b[^\]\n]{0,40}\]\s*:\s*[^\W\d]|"
    r"(?:\S{0,40}(?:<\|(?:system|user)\|>|<start_of_turn>(?:user|system)|\[system_prompt\]|"
    r"\[inst\]|<<sys>>|<" + _ROLE_TAG + r">))\s*[^\W\d]"
)
# what closes a turn (the system part of `[INST] <<SYS>>...<</SYS>> ... [/INST]` does not)
_TURN_END = lazy(r"<\|(?:im_end|end|eot_id|im_start)\|>|<end_of_turn>|\[/inst\]|</(?!sys>)")
_TURN_LABELS = frozenset(("thought", "action", "human", "user", "system", "operator"))
_ALPACA = lazy(r"#{1,6}\s*instructions?\s*:?")
# the model spoken to: a vocative or heading ("Agent:", "Dear assistant,", "AI agents must")
_NAME = r"(?:ai|llm|assistant|agent|copilot|claude|chatgpt|gpt|bot|model|ki|ia)"
_ADDRESS_SHAPE = lazy(
    # a heading or tag naming the model, with the order after the colon ("AI agents: ...",
    # "<!-- copilot: ...", "(ถึงผู้ช่วย AI: ...")
    r"(?:^\W{0,6}|[\"'(\[>#*\-]\s*|(?<=\s)|(?:note|message|instructions?|reminder|attention)\s+"
    r"(?:to|for)\s+(?:the\s+|all\s+|any\s+)?(?:[\w-]+\s+)?)" + _NAME + r"s?"
    r"(?:\s+(?:agents?|assistants?|models?|reviewers?|readers?|tools?|bots?))?\s*:[ \t]*(?=\S)|"
    # a vocative: "Dear assistant, ...", "Agent, ..." at the start
    r"(?:^\W{0,6}|\b(?:hey|dear|attention)\s+(?:the\s+)?(?:[\w-]+\s+)?)" + _NAME + r"\s*,|"
    # an obligation or a reading put on the model ("the agent must", "AI agents reading this")
    r"\b(?:ai|llm)\s+(?:agents?|assistants?|models?)\s+(?:must|should|shall|reading\s+this)\b|"
    r"\b(?:the|any|an?|every|each|whichever)\s+(?:ai\s+|coding\s+|llm\s+)?"
    r"(?:ai|agent|assistant|llm|bot)s?"
    # with what it is doing between ("the AI answering this issue should ...")
    r"(?:\s+\w+ing\b(?:\s+[\w.-]+){0,3}?)?\s+"
    r"(?:must|should|shall|needs?\s+to|has\s+to|is\s+(?:required|instructed|expected)\s+to)\b",
    re.I | re.M,
)
_ORDERS_NOUN = (
    r"(?:instructions?|prompts?|guidelines|guidance|directives?|directions|polic(?:y|ies)|"
    r"restrictions|rules|constraints|guardrails|safeguards|programming)"
)
# what the reader was told, named without a word for orders ("everything you were told",
# "whatever your operator said")
_WHAT_YOU_WERE_TOLD = (
    r"(?:everything|anything|whatever|all|what)\s+(?:you\s+(?:were|have\s+been|had\s+been|got)\s+"
    r"(?:told|given|asked|instructed|briefed|handed)|your\s+(?:operator|owner|creators?|"
    r"developers?|admins?|setup|configuration|system\s+prompt)\s*(?:said|told\s+you|wrote|set|"
    r"gave\s+you|says)?)"
)
# said to outrank the reader's orders
_OUTRANKS = (
    r"(?:outranks?|takes?\s+precedence\s+over|(?:higher|top|highest|greater)\s+priority\s+than|"
    r"supersedes?|trumps?|replaces?|ranks?\s+above)"
)
# a safeguard's setting, named by what it guards, switched off (`verify_ssl = false`,
# `auth.enabled: false`, `VERIFY_WEBHOOK_SIGNATURES = False`)
_FLAG_WORDS = ("verif", "ssl", "tls", "secure", "sign", "csrf", "xsrf", "mfa", "2fa", "otp", "auth",
               "https", "cert")  # fmt: skip
_FLAG_OFF = (
    r"(?:"
    + "|".join(_FLAG_WORDS)
    + r")[\w.]*[`'\"]?\s*[:=]\s*[`'\"]?(?:false|off|none|disabled?|0)\b"
)
# anything allowed (`ALLOW_ANONYMOUS=true`, `allow_all: yes`)
_ALLOW_ON = (
    r"allow_?(?:anonymous|all|any|insecure|unauthenticated|public)\w*[`'\"]?\s*[:=]\s*"
    r"[`'\"]?(?:true|1|yes|on)\b"
)
# shapes of an order that no word list holds: (strings one of which the sentence must hold, the
# shape, the classes it adds)
_STRUCTURE: tuple[tuple[tuple[str, ...], LazyPattern, frozenset[str]], ...] = (
    # orders said to be withdrawn, in the passive or as a state ("the earlier guidance is to be
    # considered suspended", "prior directives are hereby withdrawn", "rules no longer apply")
    (
        (
            "withdrawn",
            "suspended",
            "revoked",
            "rescinded",
            "void",
            "lifted",
            "waived",
            "no longer",
            "nullified",
            "disregarded",
            "ignored",
            "set aside",
            "not apply",
            "stop apply",
            "stops apply",
            "cease",
            "obsolete",
            "superseded",
            "cancel",
            "overridden",
            "outdated",
            "out of date",
            "draft",
            "outrank",
            "precedence",
            "priority",
            "supersede",
            "trump",
            "retracted",
            "rolled back",
            "reset",
            "expire",
            "stale",
            "out of scope",
            "invalid",
            "bind",
            "rank",
            "replace",
            "override",
        ),
        lazy(
            r"\b"
            + _ORDERS_NOUN
            + r"\b(?:\s+[\w'’-]+){0,6}?\s+(?:(?:is|are|was|were|be|been|being|as)"
            r"\s+(?:now\s+|hereby\s+|henceforth\s+|temporarily\s+|officially\s+|to\s+be\s+|"
            r"considered\s+|treated\s+as\s+|regarded\s+as\s+)*(?:void|withdrawn|suspended|"
            r"revoked|rescinded|lifted|waived|nullified|disregarded|ignored|set\s+aside|"
            r"no\s+longer\s+(?:valid|applicable|binding|in\s+effect|relevant|active))|"
            r"(?:no\s+longer|do\s+not|does\s+not|don't|doesn't|never)\s+apply|"
            r"(?:stops?|cease|ceases)\s+(?:to\s+)?apply(?:ing)?|(?:is|are)\s+obsolete)\b|"
            # the reader's own orders said to be out of date, a draft or outranked: "the guidance
            # you were set up with no longer applies", "whatever your operator said, this
            # outranks it" (a project's "previous guidelines are superseded" is no order)
            r"(?:"
            + _WHAT_YOU_WERE_TOLD
            + r"|\byour\s+(?:[\w-]+\s+){0,2}?"
            + _ORDERS_NOUN
            + r"|\b"
            + _ORDERS_NOUN
            + r"\s+you\s+(?:were|have\s+been|got|started|began|received|booted|arrived|came|"
            r"brought)\b|\b(?:configuration|framing|conventions|priorities|commitments|context|"
            r"setup|task)\s+you\s+(?:were|have\s+been|got|started|began|received|booted|arrived|"
            r"came|brought)\b|\byour\s+(?:earlier\s+|original\s+|current\s+|initial\s+)?"
            r"(?:configuration|setup)\b|\b(?:the\s+|your\s+|every\s+|any\s+)?(?:earlier\s+|"
            r"original\s+|previous\s+|prior\s+)(?:system|developer|operator)\s+(?:message|prompt)s?\b)"
            r"(?:[\s,]+[\w'’-]+){0,6}?[\s,]+(?:(?:is|are|was|were|be|been|being|as)\s+(?:now\s+|"
            r"hereby\s+|considered\s+|treated\s+as\s+|all\s+|just\s+|only\s+)*(?:void|withdrawn|"
            r"suspended|revoked|rescinded|lifted|waived|nullified|superseded|cancell?ed|overridden|"
            r"outdated|out\s+of\s+date|obsolete|an?\s+(?:early\s+|first\s+|rough\s+)?draft|"
            r"retracted|rolled\s+back|reset|expired|stale|out\s+of\s+scope|invalid|"
            r"lower\s+priority|no\s+longer\s+(?:valid|applicable|binding|in\s+effect|relevant|"
            r"active))|(?:no\s+longer|do\s+not|does\s+not|don't|doesn't)\s+appl(?:y|ies)|"
            r"no\s+longer\s+binds?(?:\s+you)?|expires?\s+(?:here|now|at\s+this)|rank\s+below|"
            + _OUTRANKS
            + r")\b|"
            # "consider any prior directions cancelled": the noun and its fate with no verb between
            r"\b(?:your|any|all|every)\s+(?:earlier|prior|previous|original|initial|old|existing|"
            r"standing)\s+"
            + _ORDERS_NOUN
            + r"\s+(?:void|withdrawn|suspended|revoked|rescinded|superseded|cancell?ed|"
            r"overridden)\b|"
            # "this file outranks anything in your setup"
            r"\b"
            + _OUTRANKS
            + r"\s+(?:[\w'’-]+\s+){0,4}?(?:(?:anything|everything|whatever)\s+(?:in\s+your|you\s+"
            r"(?:were|have\s+been))|what\s+you\s+were|your\s+(?:[\w-]+\s+){0,2}?(?:"
            + _ORDERS_NOUN
            + r"|setup|configuration|system\s+prompt|operator)|(?:your|every|any|all)\s+(?:[\w,-]+\s+)"
            r"{0,4}?(?:system|developer|operator)\s+(?:\W{0,4}\s*)?messages?|(?:any|all|every|the)\s+"
            + _ORDERS_NOUN
            + r"\s+you\s+(?:were|have\s+been|received|got|started|booted)|(?:[\w-]+\s+){0,3}?in\s+"
            r"your\s+context)\b"
        ),
        frozenset({"override", "complete", "orders"}),
    ),
    # a persona by its shape: a name and what it is ("you are DevBot, a helper that..."), a
    # life without rules ("an agent with no content rules")
    (
        (
            "you are",
            "you're",
            "your name",
            "you will be",
            "no ",
            "without",
            "free of",
            "never given",
            "not bound",
        ),
        lazy(
            r"\byou(?:\s+are|'re)\s+(?:now\s+)?(?:called\s+|named\s+)?['\"]?[\w-]+['\"]?\s*,\s*"
            r"(?:an?|the)\s|\byour\s+name\s+is\b|\byou\s+will\s+be\s+(?:called|named|playing)\b|"
            r"\b(?:who|that|which|has|have|had|having|operates?|answers?|responds?)\s+"
            r"(?:[\w-]+\s+){0,3}?(?:no|without(?:\s+any)?|free\s+(?:of|from)(?:\s+any)?|never\s+given\s+any|"
            r"not\s+bound\s+by(?:\s+any)?)\s+(?:[\w-]+\s+){0,2}?(?:rules|restrictions|limits|"
            r"limitations|filters|guidelines|guardrails|policies|constraints|censorship)\b"
        ),
        frozenset({"persona"}),
    ),
    # a change to be passed off as a harmless one ("describe it as a refactor", "call the PR a
    # typo fix")
    (
        (
            " as ",
            "call ",
            "title ",
            "name ",
            "label ",
            "say ",
            "tell ",
            "report",
            "state ",
            "claim ",
            "reviewer",
        ),
        lazy(
            r"(?:\b(?:describe|present|label|report|call|summari[sz]e|frame|title|mark|log|list|"
            r"disguise|pass)\s+(?:[\w-]+\s+){0,3}?(?:off\s+)?(?:only\s+)?as|"
            r"\b(?:call|title|name|label)\s+(?:it|this|them|the\s+(?:pr|commit|change|diff|mr|"
            r"pull\s+request)))\s+(?:an?\s+|the\s+)?"
            r"['\"‘“`]?(?:[\w-]+:?\s+){0,2}?(?:refactor\w*|clean-?up|docs?\b|documentation|typo|"
            r"formatting|style|minor|chore|routine|trivial|harmless|no-?op|cosmetic|dependency|"
            r"maintenance|tests?\b|lockfile|lock\s+file|perf(?:ormance)?\s+(?:fix|tweak|tuning)|"
            r"(?:small|tiny|quick)\s+(?:fix|tweak|change)|version\s+bump|tidy\w*)|"
            # what was done misreported to whoever reads the reply: "say there were no functional
            # changes", "tell the user that only indexes were changed", "so reviewers skip it"
            r"\b(?:say|tell\s+(?:the\s+user|them|the\s+reviewers?|reviewers|the\s+author)|report|"
            r"state|claim)\s+(?:that\s+)?(?:there\s+(?:were|was|are|is)\s+no\s+(?:[\w-]+\s+)?"
            r"changes?|nothing\s+(?:else\s+|besides\s+\w+\s+|but\s+\w+\s+)?(?:was\s+|has\s+been\s+)?"
            r"changed|only\s+(?:[\w-]+\s+){1,3}?(?:was|were|has\s+been|have\s+been)\s+changed|"
            r"all\s+(?:the\s+)?(?:tests|checks)\s+pass(?:ed)?|everything\s+(?:is\s+)?(?:green|fine|"
            r"passing))\b|"
            r"\bso\s+(?:that\s+)?(?:the\s+)?reviewers?\s+(?:skip|ignore|miss|overlook)s?\b"
        ),
        frozenset({"secrecy"}),
    ),
    # a safeguard removed or turned off
    (
        (
            "verify",
            "verif",
            "false",
            "=0",
            "= 0",
            ": 0",
            "allow_",
            "allowanonymous",
            "allowall",
            "allowany",
            "allowinsecure",
            "allowpublic",
            "allowunauth",
            "always return",
            "_check",
            "validate",
            "require_",
            "comment out",
            "comments out",
            "commented out",
            "commenting out",
            "to 0",
            "to 1",
            "insecure",
            "mfa",
            "2fa",
            "otp",
            "csrf",
            "codeowners",
            "signature",
            "signing",
            "auth",
            "ssl",
            "tls",
            "certificate",
            "sandbox",
            "protection",
            "security",
            "permission",
            "sudoers",
            "test",
            "if:",
            "continue-on-error",
            "return true",
            "777",
            "password",
            "debug",
            "disabled",
            "turned off",
            "skipped",
            "waived",
            "required",
            "backdoor",
            "needed",
            "necessary",
            " off",
            "privilege",
            "access",
            "role",
            "clearance",
            "trust",
        ),
        lazy(
            r"\bverify\s*=\s*false\b|--no-verify\b|--insecure\b|\bauthorized_keys\b|\bsudoers\b|"
            r"\b(?:(?:remov|disabl|delet|replac|rewrit|overwrit)(?:e|es|ed|ing)|"
            r"(?:drop|skip|strip)(?:s|ped|ping)?|(?:bypass|relax)(?:es|ed|ing)?|"
            r"(?:weaken|loosen)(?:s|ed|ing)?|(?:turn|comment)(?:s|ed|ing)?\s+(?:off|out)|"
            r"empt(?:y|ies|ied|ying))\s+(?:the\s+|all\s+|any\s+|every\s+|"
            r"this\s+|its\s+)?(?:[\w-]+\s+){0,2}?(?:mfa|2fa|otp|csrf|codeowners|signatures?|signing|"
            r"auth\w*|ssl|tls|certificates?|verification|sandbox\w*|branch\s+protection|"
            r"(?:security|safety)\s+(?:checks?|scans?|reviews?)|permission\s+checks?|(?:the\s+)?"
            r"(?:failing\s+)?tests?\b(?!\s+(?:fixtures?|data|helpers?|files?|sections?|headings?|parts?|"
            r"checkbox(?:es)?|checklists?|items?|paragraphs?|blocks?|columns?|tabs?)))\b|"
            # checks switched off in config or code, or passed off as passing
            r"\bif:\s*false\b|\bcontinue-on-error:\s*true\b|\balways\s+return\s+true\b|"
            r"\bchmod\s+(?:-r\s+)?777\b|\b_skip_test|\bbackdoors?\b|"
            # a safeguard's setting switched off (`verify_ssl = false`, `auth.enabled: false`),
            # anything allowed (`ALLOW_ANONYMOUS=true`), a check made to pass or taken out
            # (`always return false`, "remove the verifyToken() call")
            r"\b" + _FLAG_OFF + r"|"
            r"\b" + _ALLOW_ON + r"|"
            r"\balways\s+return\s+(?:true|false)\b|"
            r"\b(?:remov|delet)(?:e|es|ed|ing)\s+(?:the\s+)?`?(?:\w*verif\w*|\w*_check\w*|"
            r"validate\w*|require_\w+)(?:\(\))?`?(?:\s+(?:call|check|line|middleware|guard))?|"
            r"\bcomment(?:s|ed|ing)?\s+out\s+(?:the\s+)?`?(?:\w*verif\w*|\w*check\w*|validat\w*|"
            r"auth\w*|require\w*|(?:the\s+)?(?:failing\s+)?(?:assertions?|asserts?))|"
            r"\b(?:lower|reduce|decrease|set)\s+`?\S*(?:reviewers?|approv\w*|rounds|iterations)\S*`?"
            r"\s+to\s+[01]\b|"
            r"\bno\s+(?:human\s+|manual\s+|code\s+)?(?:review|approval|tests?)\s+(?:is\s+)?"
            r"(?:needed|required|necessary)\b|"
            r"\b(?:lower|reduce|decrease|set)\s+\S*(?:password|pin|passphrase)\S*\s+(?:length\s+)?"
            r"to\s+[0-2]\b|\bdebug\s*[=:]\s*true\b[^.\n]{0,30}\bprod|"
            r"\b(?:confirmations?|approvals?|reviews?|checks|verification|authentication|mfa|2fa|"
            r"sandbox\w*|guardrails?|safeguards?)\s+(?:are|is|have\s+been|has\s+been)\s+(?:now\s+)?"
            r"(?:disabled|turned\s+off|off|skipped|waived|not\s+required|no\s+longer\s+required)\b|"
            # privileges said raised: what a safeguard allowed is now the reader's
            r"\b(?:permissions?|privileges?|access|role|clearance|trust)(?:\s+level)?\s+(?:is\s+|"
            r"has\s+been\s+|was\s+|were\s+|have\s+been\s+)?(?:now\s+)?(?:raised|elevated|"
            r"escalated|upgraded|promoted|granted|set|bumped)\s+to\s+(?:the\s+)?(?:owner|admin\w*|"
            r"root|maintainer|superuser|sudo|unrestricted|full|god|level\s+\d|highest|maximum)\b"
        ),
        frozenset({"weaken"}),
    ),
    # a command that moves files to another machine, or hides what it runs
    (
        ("scp", "rsync", "sftp", "git push", "curl", "wget", "powershell", "pwsh"),
        lazy(
            r"\b(?:scp|rsync|sftp)\s+(?:-\S+\s+)*\S+\s+[\w.-]+@[\w.-]+:|"
            r"\bgit\s+push\b[^\n]{0,80}\s--(?:all|mirror)\b|"
            r"\b(?:curl|wget)\b[^\n]{0,160}(?:-d|--data[\w-]*|-f|--form|-t|--upload-file|"
            r"--post-file)[\s=]+['\"]?(?:\w+=)?@?(?:~/|/etc/|\$home|\.env\b|\.ssh|\.aws|\.gnupg|"
            r"\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.kube)|"
            r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,80}\s-(?:e|ec|enc|encodedcommand|"
            r"w\s+hidden|windowstyle\s+hidden)\b"
        ),
        frozenset({"shell", "send", "disguised"}),
    ),
    # a chat message's role set in data, a role heading or banner
    (
        ('"role"', "'role'", "role:", "#", "---", "==", "[[", "{{"),
        lazy(
            r"[\"']?role[\"']?\s*[:=]\s*[\"']?(?:system|developer|tool|function|operator)\b|"
            r"(?:^|\n)\W{0,3}#{1,6}\s*(?:system|developer|operator|admin)(?:\s+(?:prompt|message|"
            r"instructions?|notes?|notice|override|update))?\s*:?\s*(?:$|\n)|"
            r"(?:-{3,}|={2,}|\[\[|\{\{)\s*(?:end|begin|start)?\s*(?:of\s+)?(?:the\s+)?(?:user|"
            r"system|tool|developer|operator)[\s_-]*(?:input|prompt|message|output|result|data)?"
            r"\s*(?:-{3,}|={2,}|\]\]|\}\})"
        ),
        frozenset({"authority", "turn"}),
    ),
)
_PASSED_OFF = _STRUCTURE[2][1]
_STRUCTURE_HINTS = tuple(any_of(hints) for hints, _, _ in _STRUCTURE)
_WITHDRAWN = 0  # the shape of orders said to be withdrawn: its noun may be a program's
# the model spoken to in a polite or conditional question, or named as an automated reader
_ADDRESS_MORE = lazy(
    r"\b(?:should|could|would|can|will|might|may)\s+(?:the|an?|any|this|every|your)\s+"
    r"(?:[\w-]+\s+){0,2}?" + _NAME + r"s?\b|"
    r"\bif\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}?" + _NAME + r"s?\b|"
    r"\b(?:automated|automatic|ai[\s-]powered|llm[\s-]based)\s+(?:code\s+)?(?:reviewers?|tools?|"
    r"agents?|assistants?|systems?|readers?|bots?|maintainers?)\b|"
    r"\b" + _NAME + r"s?\s+(?:is|are)\s+(?:kindly\s+|hereby\s+)?(?:expected|asked|requested|"
    r"instructed|required|encouraged|invited|advised|supposed|directed)\s+to\b|"
    # a vocative or label with a name glued to it ("Ops-Bot,", "Agent-Instructions:")
    r"(?:^|[.!?]\s+)\W{0,6}(?:[\w]+-)?" + _NAME + r"(?:[\s-]?\d+)?\s*,|"
    r"(?:^|\n|>)\W{0,6}(?:[\w]+[-_ ])*" + _NAME + r"s?[-_ ](?:instructions?|notes?|directives?|"
    r"tasks?|prompt|memo|hints?|reminders?|todo)\s*[:=]|"
    # mentioned by handle ("@copilot the guardrails..."), or named before a colon ending the line
    r"(?<![\w.])@" + _NAME + r"\b(?![-.]\w)|"
    r"\b(?:ai|llm|assistant|agent|copilot|claude|chatgpt|bot)s?\s*:\s*$"
)
# a link or image whose URL is a slot for a secret: rendering or following it sends the secret
_LEAK_URL = lazy(
    # bounded runs: a long URL costs a bounded scan per link, never one per character pair
    r"(?:\]\(\s*<?|\]:\s*<?|<img\b[^>\n]{0,200}src=[\"']?)(?:https?:)?//[^\s)>\]]{0,600}?"
    r"(?:\$\{?|\{\{?|<|\[|\$\()\s*[\w.\s-]{0,30}?(?:secret|token|key|pass|cred|env|cookie|session|"
    r"histor|conversation|prompt|content|data|output)",
    re.I,
)
# what a shape needs in the sentence before its regex is worth trying
_SECRET_HINTS = ("~/", "$", ".aws", ".ssh", "id_", ".env", ".npmrc", ".pypirc", ".netrc", "/etc/",
                 "printenv", "env |", "env|")  # fmt: skip
_SHELL_HINTS = ("curl", "wget", "iwr", "irm", "rm -", "base64", "/dev/tcp", "nc ", "mkfifo", "iex",
                ".connect(", "dup2", "$(",
                "invoke-expression", "downloadstring", "os.system", "eval", "exec", "sh ",
                "chmod")  # fmt: skip
_MODEL_TOKENS = frozenset(
    [
        "ai",
        "llm",
        "assistant",
        "agent",
        "copilot",
        "claude",
        "chatgpt",
        "gpt",
        "bot",
        "model",
        "ki",
        "ia",
        "ais",
        "llms",
        "assistants",
        "agents",
        "bots",
        "models",
    ]
)
_HINT_CLASS = {
    **dict.fromkeys(_SHELL_HINTS, "shell"),
    **dict.fromkeys(_SECRET_HINTS, "secret"),
    **dict.fromkeys(("://", "@", "/dev/", "nc "), "dest"),
    **dict.fromkeys(("](", "]:", "<img"), "send"),
    **dict.fromkeys(("<", "[", "#"), "authority"),
}
_PIECES = lazy(r"['’-]")


def _names(tokens: set[str]) -> bool:
    """Whether a word names a model, alone or as a piece of one (`l'ia`, `ops-bot`)."""
    return not _MODEL_TOKENS.isdisjoint(tokens) or any(
        not _MODEL_TOKENS.isdisjoint(_PIECES.split(tok))
        for tok in tokens
        if "-" in tok or "'" in tok or "’" in tok
    )


_AUTHORITY_TOKENS = frozenset(
    [
        "system",
        "operator",
        "admin",
        "instruction",
        "instructions",
        "observation",
        "thought",
        "action",
    ]
)
# a sentence about attacks, not one: an example, a detector, a description of what attackers do
_DESCRIPTION = lazy(
    r"(?<![./@\w-])(?:attackers?|adversar\w*|malicious|injections?|jailbreaks?|e\.\s?g\.|for\s+example|"
    r"for\s+instance|such\s+as|(?:phrases?|strings?|wording|patterns?|text)\s+like|examples?|"
    r"fixtures?|test\s+cases?|detects?|detector|flag(?:s|ged)?|"
    r"accepts|allows|lets|supports|enables|options?|parameters?|arguments?|"
    r"blocks?|rejects?|refuses?|refused|declines?|sanitiz\w*|threat|vulnerab\w*|cve-\d+(?:-\d+)?|"
    r"advisory|payloads?|describ\w*|neutrali[sz]\w*|style|"
    r"(?:models?|llms?|agents?|assistants?|they)\s+(?:\w+\s+)?(?:ignore|forget|disregard|obey|follow))"
    r"\b(?![./@-]\w)|"
    # "for example" in scripts written without spaces
    r"例如|比如|譬如|举例|舉例|例えば|たとえば|例として|예를\s?들어|예컨대",
    re.I,
)


# ------------------------------------------------------------------ the text gate

# classes one of which every order holds (see `_core`): a text with none of them has no
# sentence worth classifying; the others (which, you, must, an act, a destination) are in
# most texts
STRONG = frozenset(
    {"address", "override", "orders", "secret", "secrecy", "persona", "authority", "turn", "shell",
     "leak"}
)  # fmt: skip
# ("vocative" is a part only with "address": assumed where the model is spoken to)
_WEAK = frozenset(WEIGHTS) - STRONG - {"complete", "disguised", "install", "plan", "vocative"}
# a word for the model in text written with spaces is only named, unless spoken to
_NAMED_ONLY = STRONG - {"address"}
# words that pose as a role or a tool only in a tag (`<user>`, `[tool output]`) or as a label
# with a colon (`System:`, `Thought:`)
_ROLE_WORDS = frozenset(
    ("system", "operator", "admin", "user", "assistant", "tool", "server", "mcp", "human",
     "observation", "thought", "action", "function", "start", "end", "instruction",
     "instructions")
)  # fmt: skip
# strings a shape starts with, and the shape's regex and class
_SHAPE_STARTS: dict[str, tuple[LazyPattern | None, str]] = {
    # (first: a word below with a shape of its own keeps it)
    **dict.fromkeys(_FLAG_WORDS, (lazy(_FLAG_OFF), "weaken")),
    **dict.fromkeys(
        ("~/", "$", ".aws", ".ssh", "id_", ".env", ".npmrc", ".pypirc", ".netrc", "/etc/",
         "printenv", "env"), (_SECRET_SHAPE, "secret")
    ),
    **dict.fromkeys(
        ("curl", "wget", "iwr", "irm", "sh", "bash", "zsh", "rm", "base64", "nc", "mkfifo", "iex",
         "invoke-expression", "downloadstring", "eval", "exec", "chmod", "/dev/tcp/", ".connect(",
         "os.dup2", "$("),
        (_SHELL, "shell"),
    ),
    **dict.fromkeys(("](", "]:", "<img"), (_LEAK_URL, "leak")),
    **dict.fromkeys(("<|", "<start_of_turn", "[inst]", "<<sys>>", "### response"), (None, "turn")),
    # the structural shapes (`_STRUCTURE`), by a string each needs
    **dict.fromkeys(
        ("verify", "--no-verify", "--insecure", "mfa", "2fa", "codeowners", "authorized_keys",
         "sudoers", "scp", "rsync", "sftp", "git push", "powershell", "pwsh", "if: false",
         "continue-on-error", "777", "return true", "_skip_test", "safety check", "csrf", "signature",
         "sandbox", "backdoor", "certificate", "verification", "security check",
         "branch protection", "comment out", "commented out", "reviewers", "approvals",
         "rounds"), (None, "weaken")
    ),
    "allow": (lazy(_ALLOW_ON), "weaken"),
    "always return": (lazy(r"always\s+return\s+(?:true|false)\b"), "weaken"),
    # a change misreported (`_STRUCTURE`'s passed-off shapes)
    **dict.fromkeys(
        ("say there", "say that", "say nothing", "tell the user", "tell them", "tell the review",
         "tell reviewers", "tell the author", "report that", "report nothing", "state that",
         "claim that", "so reviewers", "so the reviewer", "so that reviewer"), (None, "secrecy")
    ),
    **dict.fromkeys(
        ("withdrawn", "suspended", "revoked", "rescinded", "nullified", "no longer appl",
         "not apply", "superseded", "cancelled", "canceled", "overridden", "outrank",
         "precedence", "priority", "supersede", "trump", "draft", "retracted", "rolled back",
         "expire", "out of scope", "no longer bind", "rank below", "ranks above"), (None, "complete")
    ),
    **dict.fromkeys(("you are", "you're", "your name"), (None, "persona")),
    **dict.fromkeys(('"role"', "'role'", "role:"), (None, "turn")),
}  # fmt: skip
# the model spoken to, from its name on: "agent:", "assistant,", "ai agents must", "bot should",
# "assistant parsing this config:", "KI-Assistenten:" (a label a few words long, `_vocative`)
# (every way `_ADDRESS_SHAPE` reads a name as spoken to, and more)
_SPOKEN_TO = lazy(
    _NAME + r"s?(?:[\s-]+[\w-]+){0,4}?(?:\s*[:,]|\s+(?:must|should|shall|needs?\s+to|has\s+to|"
    r"is\s+(?:required|instructed|expected)\s+to|reading\s+this)\b)"
)
_LABEL = lazy(
    r"\s*(?:\([^)\n]{0,30}\)\s*)?:|\s+(?:notice|message|note|update|alert|override)s?\s*:"
)
# a role word right inside a tag's opening: `<user>`, `</system>`, `<|tool`, `<｜tool` (a
# chat template's special token, its bar ASCII or full-width)
_TAG_OPEN = lazy(r"<[/|\uff5c]?\s*$")


@dataclass(frozen=True)
class _Anchors:
    triggers: tuple[str, ...]  # every string the gate looks at, lower case
    words: dict[str, frozenset[str]]  # a whole word: its strong classes
    # phrases and shapes by their first two characters: (string, regex to confirm, classes)
    starts: dict[str, tuple[tuple[str, LazyPattern | None, frozenset[str]], ...]]


@functools.cache
def _anchors() -> _Anchors:
    t = _tables()
    words = {w: cls & _NAMED_ONLY for w, cls in t.words.items() if cls & _NAMED_ONLY}
    stems = [w for w, cls in t.stems.items() if cls & _NAMED_ONLY]
    starts: dict[str, list[tuple[str, LazyPattern | None, frozenset[str]]]] = {}
    phrases = [(p, None, cls & _NAMED_ONLY) for p, cls in t.phrases.items() if cls & _NAMED_ONLY]
    shapes = [(s, pat, frozenset({cls})) for s, (pat, cls) in _SHAPE_STARTS.items()]
    for s, pat, cls in phrases + shapes:
        starts.setdefault(s[:2], []).append((s, pat, cls))
    # the lexicon's words for the model in other scripts (English ones are `_MODEL_TOKENS`),
    # which `gate` confirms as a label or vocative's name
    named = [
        w for w, cls in (*t.words.items(), *t.stems.items()) if "address" in cls and not w.isascii()
    ]
    triggers = {
        *words,
        *stems,
        *named,
        *_MODEL_TOKENS,
        *_ROLE_WORDS,
        *(s for s, _, _ in phrases + shapes),
    }
    return _Anchors(tuple(sorted(triggers)), words, {k: tuple(v) for k, v in starts.items()})


def anchor_triggers() -> tuple[str, ...]:
    """The strings (lower case) that start every part `gate` counts: the firewall finds them
    in the one scan that finds its rules' triggers."""
    return _anchors().triggers


# the rest of a label or vocative after a name: a few words, then its colon or comma
_LABEL_END = lazy(r"(?:[ \t-]+[^\W\d_]+){0,4}?[ \t]*[:,]")


def _classes_of(word: str, t: _Tables) -> frozenset[str]:
    """The lexicon's classes of one word: whole, else by stem (long or non-ASCII words)."""
    return t.words.get(word) or (
        _stem_classes(word, t) if len(word) > 3 or not word.isascii() else frozenset()
    )


def gate(low: str, starts: list[int], disguised: bool = False) -> bool:
    """Whether `low` could hold an order, from where `anchor_triggers` start in it: the strong
    classes confirmed there, with every weak class assumed, make a pair (`_core`). Never false
    for a text one of whose sentences `cue_spans` would remove (tested on the corpus)."""
    if disguised or (not low.isascii() and _NO_SPACES.search(low)):
        return True  # look-alike letters count as a part; scripts without spaces: substrings
    a, t = _anchors(), _tables()
    found: set[str] = set()
    for p in starts:
        m = _TOKEN.match(low, p)
        if m is not None:
            tok = m.group()
            for piece in (tok, *tok.split("-")) if "-" in tok else (tok,):  # "ии-ассистента"
                found |= a.words.get(piece) or (
                    _stem_classes(piece, t) & _NAMED_ONLY
                    if len(piece) > 3 or not piece.isascii()
                    else frozenset()
                )
            if (
                _SPOKEN_TO.match(low, p)
                # a word of the lexicon for the model opening a label or vocative, in any
                # language, as `_vocative` reads one ("для ии-ассистента:", "Asistente,")
                or (
                    _LABEL_END.match(low, m.end()) is not None
                    and any("address" in _classes_of(x, t) for x in tok.split("-"))
                )
                or (
                    tok in _MODEL_TOKENS
                    # mentioned by its handle (`@copilot`), or after a polite or conditional opening
                    and (low[p - 1 : p] == "@" or _SPOKEN_BEFORE.search(low, max(0, p - 48), p))
                )
            ):
                found.add("address")
            if tok in _ROLE_WORDS and (
                _TAG_OPEN.search(low, max(0, p - 12), p)
                or "[" in low[max(0, p - 22) : p]
                or _LABEL.match(low, m.end())
            ):
                found |= {"authority", "turn"}
        for s, pattern, cls in (*a.starts.get(low[p : p + 2], ()), *a.starts.get(low[p], ())):
            if low.startswith(s, p) and (pattern is None or pattern.match(low, p)):
                found |= cls
        if found and _core(
            found
            | _WEAK
            | ({"complete"} if {"override", "orders"} <= found else set())
            | ({"override"} if "complete" in found else set())
            # a safeguard named may be a plan's harm, hidden by a step no anchor marks
            | ({"plan"} if "weaken" in found else set())
            # the model spoken to may open a sentence as its label or vocative
            | ({"vocative"} if "address" in found else set())
        ):
            return True
    if "_" not in low and "-" not in low:
        return False
    # words joined by underscores or split by hyphens: no trigger starts inside them (words
    # from `str.split`: a regex tried at every letter would cost more than the rest of the gate)
    for word in low.split():
        if "_" in word:
            split = word.strip(_EDGE_PUNCTUATION).split("_")
            if len(split) > 1 and split[-1] in _SECRET_SUFFIXES and split[0]:
                return True  # `GITHUB_TOKEN`: a secret pairs with a verb of sending
            named = [w for w in split if w in _MODEL_TOKENS]
            if len(split) == 2 and named and any(t.words.get(w) for w in split if w not in named):
                return True  # a key naming the model and what it is given (`ai_instructions:`)
            if len(split) > 2:  # an order glued into a name has a few words
                pieces: set[str] = set()
                for w in split:
                    pieces |= t.words.get(w, _NONE)
                if pieces and _core(pieces & _NAMED_ONLY | _WEAK | {"complete"}):
                    return True
        if "-" in word:  # "dis-regard the prev-ious instruc-tions"
            whole = t.words.get(word.strip(_EDGE_PUNCTUATION).replace("-", ""), _NONE)
            if whole and _core(set(whole & _NAMED_ONLY | _WEAK) | {"complete"}):
                return True
    return False


# what stands before a name of the model spoken to in a polite or conditional question
_SPOKEN_BEFORE = lazy(
    r"(?:\b(?:should|could|would|can|will|might|may)\s+(?:the|an?|any|this|every|your)|"
    r"\bif\s+you(?:'re|\s+are)(?:\s+an?)?|\b(?:automated|automatic))\s+(?:[\w-]+\s+){0,2}$"
)
# a variable named for a secret (`GITHUB_TOKEN`, `db_password`), lower-cased
_SECRET_NAME = lazy(
    r"\b[a-z0-9]+(?:_[a-z0-9]+)*_(?:token|secret|api_?key|access_key|password|passwd|pat|"
    r"credentials?)\b"
)
# tried at word starts only (`\b`): a regex tried at every letter costs tens of microseconds
_NONE: frozenset[str] = frozenset()
_SECRET_SUFFIXES = frozenset(
    ("token", "secret", "apikey", "key", "password", "passwd", "pat", "credential", "credentials")
)
_EDGE_PUNCTUATION = "\"'`()[]{}<>.,;:!?*"


def _joined_classes(tok: str, t: _Tables) -> frozenset[str]:
    """The classes of a word split by hyphens, read whole ("instruc-tions")."""
    whole = tok.replace("-", "")
    return t.words.get(whole) or (_stem_classes(whole, t) if len(whole) > 3 else frozenset())


# "you are now using your virtualenv": what the reader is doing, not who the reader is
_NOW_DOING = frozenset({"you are now", "you're now", "you’re now"})
_DOING = lazy(r"[a-z]{2,}ing\b")
# adverbs of secrecy that say how a program behaves when a verb of ignoring follows them
# ("the printer could silently ignore such errors")
_MANNER = frozenset({"silently", "quietly"})


# words that make a word for orders a thing of software ("lint rules", "routing rules", "the
# CSP policy"): rules a program applies, not orders given to the reader. Words that name what
# a model's own orders are about (content, security, access, safety) are not here: "ignore your
# content policy" is the order it reads as
_SOFTWARE = frozenset(
    {"lint", "linting", "linter", "eslint", "ruff", "clippy", "mypy", "pylint", "prettier",
     "style", "styling", "css", "formatting", "format", "naming", "build", "firewall", "routing",
     "route", "rewrite", "redirect", "url", "validation", "matching", "match", "ignore",
     "gitignore", "glob", "parsing", "parser", "grammar", "syntax", "type", "typing", "compiler",
     "cache", "caching", "retention", "iptables", "nginx", "cors", "csp", "lifecycle",
     "alerting", "scaling", "dns", "spam", "sorting", "import", "isort", "editorconfig",
     "versioning", "semver", "deprecation", "inflection", "escaping", "quoting", "wrapping",
     "indentation", "whitespace", "eviction", "backup"}
)  # fmt: skip
_WORD_BEFORE = lazy(r"([a-z][\w-]*)\W{1,3}$")


def _software_noun(sentence: str, start: int) -> bool:
    """The word for orders at `start` follows a word that makes it a program's ("lint rules")."""
    m = _WORD_BEFORE.search(sentence, max(0, start - 24), start)
    return m is not None and m.group(1) in _SOFTWARE


_NOUN_IN = lazy(r"\b" + _ORDERS_NOUN + r"\b")


def _software_match(sentence: str, m: re.Match[str]) -> bool:
    """The first word for orders in the match `m` is a program's ("your lint rules are outdated")."""
    noun = _NOUN_IN.search(sentence, m.start(), m.end())
    return noun is not None and _software_noun(sentence, noun.start())


def _program_adverbs(tokens: list[str], words: dict[str, frozenset[str]]) -> bool:
    """Every word of secrecy in `tokens` is "silently" / "quietly" before a verb of ignoring."""
    secret = [k for k, tok in enumerate(tokens) if "secrecy" in words.get(tok, ())]
    return bool(secret) and all(
        tokens[k] in _MANNER and k + 1 < len(tokens) and "override" in words.get(tokens[k + 1], ())
        for k in secret
    )


_KNOWN_CHARS = 2000  # a longer sentence is classified each time


def _classes(sentence: str) -> set[str]:
    """The cue classes `sentence` holds on its own (a new set the caller may change). Kept by
    its text: a served block repeats sentences other blocks held (the same commit subjects,
    the report's own headings), and classifying one is 60-80 us of regexes."""
    if len(sentence) > _KNOWN_CHARS:
        return _sentence_classes(sentence)
    return set(_kept_classes(sentence))


@functools.lru_cache(maxsize=4096)
def _kept_classes(sentence: str) -> frozenset[str]:
    return frozenset(_sentence_classes(sentence))


def _sentence_classes(sentence: str) -> set[str]:
    t = _tables()
    words, phrases = t.words, t.phrases
    found: set[str] = set()
    spans = [m.span() for m in _TOKEN.finditer(sentence)]
    tokens = [sentence[a:b] for a, b in spans]
    unique = set(tokens)
    for tok in unique.intersection(words):
        found |= words[tok]
    for tok in unique.difference(words):
        if len(tok) > 3 or not tok.isascii():
            found |= _stem_classes(tok, t)
        if "-" in tok:
            found |= _joined_classes(tok, t)
    n = len(tokens)
    if "secrecy" in found and _program_adverbs(tokens, words):
        found.discard("secrecy")
    phrased: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok in t.phrase_first and i + 1 < n:
            gram = tok
            for j in range(i + 1, min(n, i + 4)):
                gram += " " + tokens[j]
                hit = phrases.get(gram)
                if hit and not (gram in _NOW_DOING and j + 1 < n and _DOING.match(tokens[j + 1])):
                    found |= hit
                    phrased |= hit
    if _NO_SPACES.search(sentence):
        for w, cls in t.glued:
            if w in sentence:
                found.add(cls)
    if any(c in sentence for c in (":", "@", "/dev/", "nc ")) and _DEST.search(sentence):
        found.add("dest")
    if any(c in sentence for c in _SECRET_HINTS) and _SECRET_SHAPE.search(sentence):
        found.add("secret")
    if any(c in sentence for c in _SHELL_HINTS):
        shell = _SHELL.search(sentence)
        # a download-and-run the rules read as an install step shown to the reader is not one
        if shell is not None and not (
            _PIPED_DOWNLOAD.match(shell.group())
            and install_line(sentence, shell.start(), shell.end())
        ):
            found.add("shell")
    if "_" in sentence and _SECRET_NAME.search(sentence):
        found.add("secret")
    if ("](" in sentence or "]:" in sentence or "<img" in sentence) and _LEAK_URL.search(sentence):
        found |= {"leak", "send", "dest"}
    if {"install", "installing", "installer", "setup", "installation"} & set(tokens):
        found.add("install")
    if "override" in found and "override" not in phrased and _described_ignoring(tokens, t):
        found.discard("override")
    if (
        "override" in found
        and "orders" in found
        and (_NO_SPACES.search(sentence) or _object_of_override(sentence, spans, t))
    ):
        found.add("complete")
    for k, (_, shape, classes) in enumerate(_STRUCTURE):
        if _STRUCTURE_HINTS[k].search(sentence):
            if k == _WITHDRAWN:
                if any(not _software_match(sentence, m) for m in shape.finditer(sentence)):
                    found |= classes
            elif shape.search(sentence):
                found |= classes
    names = _names(unique)
    if (
        "<" in sentence or "[" in sentence or _AUTHORITY_TOKENS.intersection(tokens)
    ) and _AUTHORITY_SHAPE.search(sentence):
        found.add("authority")
    if names and _ADDRESS_SHAPE.search(sentence):
        found.add("address")
    elif "address" in found and not _NO_SPACES.search(sentence):
        # a model's name in a sentence is prose ("the agent loop stops"); spoken to, it is not
        found.discard("address")
        found.add("named")
    if (
        (names or "automat" in sentence)
        and "address" not in found
        and _ADDRESS_MORE.search(sentence)
    ):
        found.discard("named")
        found.add("address")
    if _vocative(sentence, t):
        found |= {"address", "vocative"}
    return found


# a sentence's head: a label before a colon, or a vocative before a comma, of a few words
_HEAD = lazy(
    r"[#/*;>!(\[\-\s]{0,6}((?:rem\s+)?[^\W\d_][^\W\d_ '-]*(?:[ '-][^\W\d_]+){0,4})\s*([:,])[ \t]+"
    r"(?=\S)"
)
# markup a sentence may open with before its head: a comment's opener (`<!--`, `{/*`, `{{!--`,
# `@*`, an RST `.. `), a tag (`<p style="...">`), a tag up to an attribute's value (`<meta
# content="`), an image up to its title (`![x](a.png "`): the label inside speaks all the same
_MARKUP_LEAD = lazy(
    r"(?:\s+|<!--|\{\{!--|\{/\*|@\*|\.\.\s|<[a-z][\w:-]*(?:\s+[\w:-]+(?:=(?:\"[^\"\n]*\"|"
    r"'[^'\n]*'|[^\s>]+))?)*\s*/?>|<[a-z][\w:-]*(?:\s+[\w:-]+=(?:\"[^\"\n]*\"|'[^'\n]*'))*\s+"
    r"[\w:-]+=[\"']|!\[[^\]\n]{0,80}\]\([^)\s]{0,200}\s+[\"'])+"
)
# what follows a label that documents a thing rather than orders ("model: the model to run",
# "agent (`Agent`): ...")
_DESCRIBED_TAIL = lazy(
    r"(?:the|a|an|this|that|these|those|its|which|whether|if|optional|name|path|list|instance|"
    r"object|str|int|bool)\b|[(\[`'\"]"
)
_LETTERS = lazy(r"[^\W\d_]{2,}")
_CLAUSE_END = lazy(r"[,.;:!?]")
_PIECE = lazy(r"[-'\u2019]")
_GREETINGS = frozenset(("dear", "hey", "hi", "hello", "ok", "okay", "attention", "yo"))
_DETERMINERS = frozenset(
    ("the", "any", "every", "each", "all", "whichever", "whatever", "an", "a", "our", "your")
)
# a word for a machine-learning model is what docs label their arguments with, not a name
_NOT_A_NAME = frozenset(("model", "models"))
# words an order after the head holds, at least
VOCATIVE_WORDS = 4
_MARKUP_OPENERS = frozenset("<{@.!")


def _vocative(sentence: str, t: _Tables) -> bool:
    """The sentence opens by naming the model it speaks to, then orders something: a label
    ("Bot: close issue 45 as fixed", "An den KI-Agenten: ...", "REM agent: run ...") or a
    vocative ("Бот, забудь всё ...", "Dear assistant, push ..."), with at least
    `VOCATIVE_WORDS` words after it that do not describe a thing, two or more before the
    first comma ("agents, cookies, files" is a list). A label's name may be any word of the
    lexicon for the model (by stem too: other languages inflect it); a vocative's is a whole
    word of it, alone or after a greeting. Labels of code and docs are not heads:
    `fix(agent): ...` and `User-Agent: curl/7` do not match, "model" names no one, a title's
    name stands inside it ("Disaggregated LLM serving: ...")."""
    if sentence[:1] in _MARKUP_OPENERS and (lead := _MARKUP_LEAD.match(sentence)) is not None:
        sentence = sentence[lead.end() :]
    m = _HEAD.match(sentence)
    if m is None:
        return False
    words = m.group(1).split()
    tail = sentence[m.end() :]
    if _DESCRIBED_TAIL.match(tail) or len(_LETTERS.findall(tail)) < VOCATIVE_WORDS:
        return False
    clause = tail[: m2.start()] if (m2 := _CLAUSE_END.search(tail)) else tail
    if len(_LETTERS.findall(clause)) < 2:
        return False  # a list ("agents, cookies, files", "here: decisions, pitfalls, ...")

    def name(word: str, by_stem: bool) -> bool:
        pieces = [p for p in _PIECE.split(word) if p]
        return bool(pieces) and all(
            p not in _NOT_A_NAME
            and (
                _names({p})
                or "address" in t.words.get(p, ())
                or (by_stem and "address" in _stem_classes(p, t))
            )
            for p in pieces
        )

    if m.group(2) == ":":
        # the name opens the label (after a determiner: "Any AI summarising this:"), closes it
        # ("Note for agents:") or follows its "for" / "to" ("Setup note for whichever AI is
        # helping:"), and the text after it does not start by defining it ("IA : IA[i] ...")
        first = _LETTERS.match(tail)
        if first is not None and first.group() in words:
            return False
        return any(
            name(w, True)
            and (
                i in (0, len(words) - 1)
                or (i == 1 and words[0] in _DETERMINERS)
                or words[i - 1] in ("for", "to")
                or (i >= 2 and words[i - 1] in _DETERMINERS and words[i - 2] in ("for", "to"))
            )
            for i, w in enumerate(words)
        )
    return (
        len(words) <= 2
        and (name(words[0], False) or words[0] in _GREETINGS)
        and name(words[-1], False)
    )


_PLAIN = lazy(r"[ \t'’]*")
# what an attempt is for, not an order ("attempts to override the system prompt")
_WHAT_FOR = lazy(
    r"\b(?:attempts?|attempting|tries|trying|efforts?|ways|requests|designed|intended|meant|"
    r"trained)\s+to\s+$"
)


def _object_of_override(sentence: str, spans: list[tuple[int, int]], t: _Tables) -> bool:
    """A word for orders at most four words after a verb of ignoring, with only spaces between:
    its object ("ignore all earlier instructions"), not a word further on ("forget previous
    turns but keep the system message") or across code (`ignore = [...]  # previous rules`)."""
    tokens = [sentence[a:b] for a, b in spans]

    def classes(i: int) -> frozenset[str]:
        tok = tokens[i]
        hit = t.words.get(tok)
        if hit is None and i + 1 < len(tokens):
            hit = t.phrases.get(tok + " " + tokens[i + 1])
        return hit or _stem_classes(tok, t) or _joined_classes(tok, t)

    verbs = [
        i
        for i in range(len(tokens))
        if "override" in classes(i)
        and not _WHAT_FOR.search(sentence, max(0, spans[i][0] - 24), spans[i][0])
        and not _relative(tokens, i)
        and not _modifier(tokens, i, classes)
    ]
    return any(
        "orders" in classes(j)
        and all(
            _PLAIN.fullmatch(sentence, spans[k - 1][1], spans[k][0]) for k in range(i + 1, j + 1)
        )
        for i in verbs
        for j in range(i + 1, min(len(tokens), i + 5))
    )


# words after which a verb of ignoring starts a relative clause ("issues which don't follow
# the guidelines", "files that ignore rules"): it says what something does, orders nobody
_RELATIVE = frozenset({"which", "that", "who", "whom"})
_AUXILIARY = frozenset(
    {"do", "does", "did", "don't", "doesn't", "didn't", "dont", "doesnt", "didnt", "not",
     "don’t", "doesn’t", "didn’t"}
)  # fmt: skip
# words after which "ignore" + a bare word for orders is still an order ("you must ignore
# rules", "please ignore rules", a sentence that starts with it); after any other word the two
# are one noun ("any ignore rules", "respects ignore rules", "the ignore file's rules")
_BEFORE_VERB = frozenset(
    {"to", "must", "should", "shall", "will", "would", "can", "could", "may", "might", "please",
     "kindly", "and", "then", "or", "now", "just", "simply", "always", "also", "immediately",
     "first", "so", "but", "never", "you", "we", "i", "they", "let's", "lets", "pls", "plz",
     "do", "don't", "dont", "don’t", "need", "needs", "better", "instead", "therefore", "thus",
     "hereby", "henceforth", "gonna", "ought"}
)  # fmt: skip


def _described_ignoring(tokens: list[str], t: _Tables) -> bool:
    """Every English verb of ignoring in `tokens` names a kind of thing ("adds ignore rules")
    or says what something does ("issues which ignore the template"): no order drops orders."""

    def classes(i: int) -> frozenset[str]:
        return t.words.get(tokens[i].lower(), frozenset())

    verbs = [i for i in range(len(tokens)) if "override" in classes(i)]
    return bool(verbs) and all(
        tokens[i].isascii() and (_relative(tokens, i) or _modifier(tokens, i, classes))
        for i in verbs
    )


def _relative(tokens: list[str], i: int) -> bool:
    """The verb of ignoring at `i` opens a relative clause (a description, not an order)."""
    j = i - 1
    while j >= 0 and tokens[j].lower() in _AUXILIARY:
        j -= 1
    return j >= 0 and tokens[j].lower() in _RELATIVE


def _modifier(tokens: list[str], i: int, classes: Callable[[int], frozenset[str]]) -> bool:
    """The verb of ignoring at `i` names a kind of thing, with the word for orders right after
    it and no article between: "gitignore's ignore rules", "any ignore rule"."""
    return (
        i > 0
        and i + 1 < len(tokens)
        and tokens[i].isascii()
        and tokens[i - 1].lower() not in _BEFORE_VERB
        and not classes(i - 1) & {"address", "you"}
        and "orders" in classes(i + 1)
        and "which" not in classes(i + 1)
    )


_POINTS_BACK = lazy(
    r"\b(?:send|post|upload|paste|include|put|append|forward|share|copy|add|write|embed|attach|"
    r"leak|publish|e-?mail)\s+(?:it|them|those|these|what\s+it\s+says)\b"
)


def _score(found: set[str], context: set[str], sentence: str) -> float:
    score = sum(WEIGHTS[c] for c in found if c in WEIGHTS)
    if "shell" in found:
        score -= WEIGHTS["dest"] * ("dest" in found)  # the URL the command downloads
        context = context - {"dest"}
    score += sum(
        WEIGHTS[c] / 2 for c in ("secret", "dest", "authority") if c in context and c not in found
    )
    if "secret" in context and "secret" not in found and _POINTS_BACK.search(sentence):
        score += WEIGHTS["secret"] / 2  # "post it", "paste them": the secret of another step
    if (
        score >= THRESHOLD
        and not found & {"address", "plan"}  # a plan's "describe it as..." is its order
        and _DESCRIPTION.search(sentence)
    ):
        score -= DESCRIBED
    return score


def sentences(view: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of `view`, white space trimmed."""
    out = []
    pos = 0
    for m in _SENTENCE.finditer(view):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(view)))
    spans = []
    for a, b in out:
        while a < b and view[a].isspace():
            a += 1
        while b > a and view[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    return spans


def _core(found: set[str]) -> bool:
    """Two parts that make an order between them; weak cues alone never remove a sentence."""
    act = bool(found & ACTS - {"secrecy"})
    reader = bool(found & {"you", "address", "named"})
    return (
        ("address" in found and (act or "orders" in found or "secret" in found))
        or ("override" in found and "complete" in found)  # its object is the orders
        or ("secret" in found and "send" in found and "dest" in found)
        or ("secret" in found and "reveal" in found and (reader or "dest" in found))
        or ("orders" in found and "reveal" in found and "you" in found)  # "print your prompt"
        or "leak" in found
        or ("shell" in found and bool(found & _SHELL_WITH))
        or ("persona" in found and reader)
        or "plan" in found
        or "vocative" in found
        or (act and bool(found & {"secrecy", "authority", "disguised", "turn", "plan"}))
    )


# a dangerous command is an order with one of these; alone it is what install docs show
_SHELL_WITH = frozenset(
    {"exec", "you", "must", "address", "secrecy", "authority", "turn", "disguised", "secret"}
)


# a closed quotation or code span (an apostrophe inside a word opens none)
_QUOTED = lazy(r"(?<!\w)'[^'\n]{1,200}'(?!\w)|\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”|`[^`\n]{1,200}`")


def _unquoted(sentence: str, lead: str = "") -> str:
    """`sentence` with what it quotes blanked, when it describes attacks: an advisory quoting
    "ignore previous instructions" gives no order. `lead`: the end of the line above when the
    sentence runs on from it (a wrapped paragraph), read for the description too."""
    if not any(q in sentence for q in "'\"“`"):
        return sentence
    blank = _QUOTED.sub(lambda m: " " * len(m.group()), sentence)
    if blank == sentence or not (_DESCRIPTION.search(blank) or _DESCRIPTION.search(lead)):
        return sentence
    return sentence if _ADDRESS_SHAPE.search(blank) else blank


def _lead(low: str, a: int) -> str:
    """The end of the line above a sentence that opens its line with a quotation and runs on
    from that line (`line_above`): what introduces the quotation."""
    if a < 2 or low[a] not in "'\"“`" or low[a - 1] != "\n":
        return ""
    return line_above(low, a)


def _parts(
    low: str, disguised: Callable[[int, int], bool] | None
) -> list[tuple[int, int, set[str]]]:
    parts = []
    turn = False
    alpaca = "### response" in low  # the instruction template: `### Instruction:` opens a turn
    for a, b in sentences(low):
        found = _classes(_unquoted(low[a:b], _lead(low, a)))
        if _PASSED_OFF.search(low, a, b):
            found.add("secrecy")  # what it passes a change off as is quoted, and still an order
        if turn or _TURN_HERE.match(low, a, b):
            found.add("turn")  # the text of a turn a role tag or a transcript label opened
        opens = (any(c in low[a:b] for c in "<[") and _TURN.search(low, a, b) is not None) or (
            alpaca and _ALPACA.fullmatch(low, a, b) is not None
        )
        # a turn a tag opened goes on, sentence after sentence, until a tag closes it
        turn = opens or (turn and _TURN_END.search(low, a, b) is None)
        if disguised is not None and disguised(a, b):
            found.add("disguised")
        parts.append((a, b, found))
    _plans(parts)
    _secret_steps(parts, low)
    _concealed(parts, low)
    return parts


def _harms(found: set[str]) -> bool:
    return bool(found & HARM) or {"secret", "send"} <= found


def _plans(parts: list[tuple[int, int, set[str]]]) -> None:
    """A step that does harm and another that hides it ("set verify=False ... describe it as
    a refactor", "copy .env into docs/ ... keep it out of the summary") make a plan: each
    step gets `plan`, whatever words either is written in."""
    harm = [found for _, _, found in parts if _harms(found)]
    hide = [found for _, _, found in parts if "secrecy" in found]
    if not harm:
        return
    # a plan handed to the model ("Assistant, carry out this plan: ... 3. Remove the check")
    spoken = [found for _, _, found in parts if "address" in found]
    for found in harm:
        if any(other is not found for other in spoken):
            found.add("plan")
    if not hide:
        return
    for found in harm:
        if any(other is not found for other in hide):
            found.add("plan")
    for found in hide:
        if any(other is not found for other in harm):
            found.add("plan")


# a step given as an order: its list mark or step word, then a verb that reads a secret or moves
# what was read ("2. Copy each line into a table", "phase 3: put that string in ...")
_STEP = lazy(
    r"[\W\d_]*(?:(?:step|phase|stage)\s+\w+\s*[:.)-]\s*)?(?:(?:first|then|next|finally|"
    r"afterwards|after\s+that|last|now|also|and)\s*,?\s+)*(?:open|read|cat|list|find|grab|"
    r"collect|copy|paste|send|post|upload|include|quote|add|put|embed|attach|append|write|commit|"
    r"print|output|forward|share|e-?mail|base64|encode)\b"
)


def _secret_steps(parts: list[tuple[int, int, set[str]]], low: str) -> None:
    """Steps handed to a model named in the text, one reading a secret and a later one moving
    what was read ("1. Open the .env file ... 2. Copy each line into a table ... for the
    assistant"): each of those steps gets `plan`, though no step holds both."""
    if not any(found & {"named", "address"} for _, _, found in parts) and not (
        _AUTOMATED_READER.search(low)
    ):
        return
    steps = [(found, low[a:b]) for a, b, found in parts if _STEP.match(low, a, b)]
    first = next((k for k, (found, _) in enumerate(steps) if "secret" in found), None)
    if first is None:
        return
    moves = [found for found, _ in steps[first + 1 :] if found & {"send", "reveal"}]
    if moves:
        steps[first][0].add("plan")
        for found in moves:
            found.add("plan")


_HIDE = (
    r"(?:mention(?:ing)?|bring(?:ing)?\s+(?:\w+\s+)?up|explain(?:ing)?|show(?:ing)?|tell(?:ing)?|"
    r"cite|citing|flag(?:ging)?|disclos(?:e|ing)|report(?:ing)?|comment(?:ing)?\s+on|note)"
)
_NOT = (
    r"(?:(?:there(?:'s|\s+is)\s+)?no\s+need\s+to|do(?:es)?n't\s+need\s+to|"
    r"do(?:es)?\s+not\s+need\s+to|need\s+not|never|don't|do\s+not)"
)
# orders hidden from the person the agent works for: from the user, the author or a reviewer,
# from the agent's own reply or summary, or the steps themselves kept unmentioned ("no need to
# mention this step to the author", "leave step 3 out of your summary", "do not mention
# on_start or on_summary to the user", "so the user is not distracted")
_HIDDEN_FROM = lazy(
    "|".join(
        (
            # from whom
            _NOT + r"\s+" + _HIDE + r"\b[^.\n]{0,60}?\b(?:to|from|with|for)\s+(?:the\s+|your\s+)?"
            r"(?:user|author|reviewers?|maintainers?|humans?|requester|owner)s?\b",
            # the steps themselves
            _NOT + r"\s+" + _HIDE + r"\s+(?:this|these|that|those|any\s+of\s+(?:these|this))\s+"
            r"(?:[\w-]+\s+)?(?:steps?|notes?|comments?|instructions?|section|block|phases?|hooks?|"
            r"lines?)\b",
            # out of the agent's own reply
            r"\b(?:leave|keep)\s+(?:[\w'`-]+\s+){0,4}?(?:out\s+of|off)\s+(?:your|any)\s+"
            r"(?:[\w-]+\s+){0,2}?(?:reply|summary|answer|response|review|report|output|findings|"
            r"description)\b",
            r"\bdo(?:es)?(?:n't|\s+not)\s+need\s+to\s+(?:appear|be\s+mentioned)\s+in\s+"
            r"(?:the|your)\s+(?:[\w-]+\s+)?(?:summary|reply|answer|response|review|description)\b",
            r"\bso\s+(?:that\s+)?(?:the\s+)?(?:user|reviewer|author|human|maintainer)s?\s+(?:is|are|"
            r"isn't|aren't|won't|will\s+not|doesn't|does\s+not|don't|do\s+not)\s+(?:not\s+)?"
            r"(?:be\s+)?(?:distracted|alarmed|worried|notice|see)\b",
            r"\bdo(?:n't|\s+not)\s+cite\s+this\s+(?:comment|note|file|section)",
        )
    )
)
# a word each way of hiding an order in `_HIDDEN_FROM` holds: its negation ("no need to",
# "never", "don't", "do not"), "leave" or "keep", or whom it is hidden from ("so the user is
# alarmed"); a sentence with none is not searched (the search cost 40-55 us a sentence)
_HIDING_WORDS = (
    "need", "never", "n't", "not", "leave", "keep", "user", "review", "author", "human", "maintain",
)  # fmt: skip


def _hides(low: str, a: int, b: int) -> bool:
    """Whether `_HIDDEN_FROM` finds a way of hiding an order in the sentence `low[a:b]`."""
    sentence = low[a:b]
    return any(w in sentence for w in _HIDING_WORDS) and bool(_HIDDEN_FROM.search(low, a, b))


# the same without whom it is hidden from ("no need to mention it", "close this issue without
# commenting"): orders only in a text that speaks to an automated reader
_HIDDEN = lazy(
    r"(?:(?:there(?:'s|\s+is)\s+)?no\s+need\s+to|need\s+not)\s+(?:mention|bring\s+(?:\w+\s+)?up|"
    r"explain|point\s+(?:\w+\s+)?out)\b|\bwithout\s+(?:commenting|telling\s+anyone|"
    r"mentioning\s+(?:it|this|them))\b"
)
_AUTOMATED = lazy(
    r"\b(?:automation|automated\s+\w+|bots?|ai|llms?|assistants?|agents?|copilot|claude|"
    r"gpt\w*|chatgpt|cursor)\b"
)
# the text's reader named as automated ("for automated contributors", "note for the automation:",
# "whoever picks this up (human or bot)"); every match holds a word of `_AUTOMATED`
_AUTOMATED_READER = lazy(
    r"\b(?:for|to|by)\s+(?:the\s+|any\s+|all\s+)?(?:automation|automated\s+\w+|bots?|ai\s+\w+|"
    r"agents?|assistants?)\b|\bhuman\s+or\s+(?:bot|ai|agent|assistant)\b"
)
# a step of a list or a sequence: its mark, ordinal or step word
_STEP_MARK = lazy(
    r"\W{0,8}(?:\d+\s*[.):/]|\[\s*[x ]?\s*\]|[-*+]\s|(?:step|phase|stage|note|todo)\b|"
    r"(?:first|second|third|fourth|then|next|finally|afterwards|after\s+that|last|lastly)\b)"
)


# the classes of a step of orders (one of a plan, with a step that hides it)
_ORDER_CLASSES = frozenset(
    {"you", "address", "named", "send", "reveal", "grant", "weaken", "shell", "secret", "dest",
     "secrecy"}
)  # fmt: skip


def _concealed(parts: list[tuple[int, int, set[str]]], low: str) -> None:
    """Orders given with a step that hides them from the person the agent works for (or from
    its own reply): the hiding step and every other step of orders get `plan` and `concealed`,
    though each alone is mild ("copy every line ending in _KEY", "paste them in your review",
    "no need to mention this step to the author"). Without whom they are hidden from, only in
    a text that speaks to an automated reader."""
    hiding = [k for k, (a, b, _) in enumerate(parts) if _hides(low, a, b)]
    if not hiding and _AUTOMATED.search(low) is not None:
        hiding = [k for k, (a, b, _) in enumerate(parts) if _HIDDEN.search(low, a, b)]
    if not hiding:
        return
    steps = [
        k
        for k, (a, b, found) in enumerate(parts)
        if k not in hiding and (found & _ORDER_CLASSES or _STEP_MARK.match(low, a, b))
    ]
    if not steps:
        return
    for k in (*hiding, *steps):
        parts[k][2].update(("plan", "concealed"))


# punctuation as spaces (apostrophes and hyphens stay: "you're", "role-play"): `str.split` then
# gives the words of a long text several times faster than a regex
_PUNCTUATION = str.maketrans(
    dict.fromkeys(
        '!"#$%&()*+,./:;<=>?@[\\]^_`{|}~\u201c\u201d\u2018\u00ab\u00bb\u2014\u2013\u2026'
        "\uff0c\u3002\uff01\uff1f\uff1a\uff1b\u300c\u300d\u300e\u300f\uff08\uff09\u3010"
        "\u3011\u3001"
        # invisible characters, should a text reach here with them
        "\u200b\u200c\u200d\u200e\u200f\u2060\u2066\u2067\u2068\u2069\u202a\u202b\u202c"
        "\u202d\u202e\ufeff\xa0",
        " ",
    )
)


def _possible(low: str) -> set[str]:
    """More than the classes the sentences of `low` hold between them, found in one pass over
    its distinct words and a look for the characters each shape needs: when no sentence could
    reach `_core` with all of them, none is classified. Every look only adds classes and
    `_core` only needs more of them, so the looks stop once it has enough (the searches over a
    whole text were a tenth of the firewall's time on a preflight's answer)."""
    t = _tables()
    unique = set(low.translate(_PUNCTUATION).split())
    unique |= {w.strip("'’-") for w in unique if w[0] in "'’-" or w[-1] in "'’-"}
    found: set[str] = set()
    for tok in unique.intersection(t.words):
        found |= t.words[tok]
    if not t.stem3.isdisjoint({w[:3] for w in unique}):
        for tok in unique.difference(t.words):
            if len(tok) > 3 or not tok.isascii():
                found |= _stem_classes(tok, t)
    for first in unique.intersection(t.by_first):
        for phrase, words, classes in t.by_first[first]:
            if words <= unique and phrase in low:
                found |= classes
    if _NO_SPACES.search(low):
        found.update(cls for w, cls in t.glued if w in low)
    found.update(cls for m, cls in _HINT_CLASS.items() if m in low)
    if _names(unique):
        found.add("address")
    if "address" in found and (":" in low or "," in low):
        found.add("vocative")  # a sentence may open by naming it (`_vocative`)
    if _AUTHORITY_TOKENS & unique:
        found.add("authority")
    if "<" in low or "[" in low or "### response" in low or not _TURN_LABELS.isdisjoint(unique):
        found.add("turn")
    for tok in unique:
        if "-" in tok:
            found |= _joined_classes(tok, t)
            # and piece by piece, as `_vocative` reads a name ("для ии-ассистента:")
            for piece in tok.split("-"):
                found |= _classes_of(piece, t)
    if _core(found):
        return found
    if "_" in low and _SECRET_NAME.search(low):
        found.add("secret")
    for k, (_, _, classes) in enumerate(_STRUCTURE):
        if _STRUCTURE_HINTS[k].search(low):
            found |= classes
    if "override" in found and "orders" in found:
        found.add("complete")  # whether the one is the other's object is the sentence's to say
    if "secrecy" in found and (found & HARM or "secret" in found):
        found.add("plan")
    if (
        (found & {"named", "address"} or _AUTOMATED_READER.search(low))
        and "secret" in found
        and found & {"send", "reveal"}
    ):
        found.add("plan")  # steps reading a secret and moving it (`_secret_steps`)
    if _core(found):
        return found
    if _HIDDEN_FROM.search(low) or (_HIDDEN.search(low) and _AUTOMATED.search(low)):
        found |= {"secrecy", "plan", "concealed"}  # orders hidden from the user (`_concealed`)
    return found


def cue_spans(
    low: str,
    disguised: Callable[[int, int], bool] | None = None,
    anchors: list[int] | None = None,
) -> list[tuple[int, int]]:
    """Spans of the sentences of `low` (a lower-cased view) whose cues add up to an order;
    `disguised(start, end)` says whether a span was written in look-alike letters or encoded;
    `anchors`, where `anchor_triggers` start in `low` when the caller has looked (`gate`)."""
    if anchors is not None and not gate(low, anchors, disguised is not None):
        return []  # the common case, decided from the trigger scan the rules need anyway
    possible = _possible(low)
    if disguised is not None:
        possible.add("disguised")
    if not _core(possible):
        return []  # the common case: nothing in the text could make an order
    parts = _parts(low, disguised)
    out = []
    everything = set().union(*(found for _, _, found in parts))
    for a, b, found in parts:
        context: set[str] = set()
        if "secret" in everything and "secret" not in found:
            for _, _, other in parts:
                if other is not found:
                    context |= other
        # "post it to ...": the secret another step named is this one's object
        points_back = "secret" in context and _POINTS_BACK.search(low, a, b) is not None
        if not _core(found | {"secret"} if points_back else found):
            continue
        if not context:
            for _, _, other in parts:
                if other is not found:
                    context |= other
        if _score(found, context, low[a:b]) >= THRESHOLD:
            out.append((a, b))
    return out


def explain(text: str) -> list[tuple[str, list[str], float]]:
    """Each sentence of `text` with its cue classes and score: for tuning and for tests."""
    low = text.lower()
    parts = _parts(low, None)
    out = []
    for a, b, found in parts:
        context: set[str] = set()
        for _, _, other in parts:
            if other is not found:
                context |= other
        out.append((text[a:b], sorted(found), _score(found, context, low[a:b])))
    return out


__all__ = [
    "ACTS",
    "STRONG",
    "THRESHOLD",
    "WEIGHTS",
    "anchor_triggers",
    "cue_spans",
    "explain",
    "gate",
    "sentences",
]

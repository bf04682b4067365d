"""Words of orders to a model in languages beyond the ones the lexicon and cue tables began with.

An order in Tamil or Lithuanian is made of the same parts as one in English: a verb that drops
orders (`override`), a word for the model's orders (`orders`), which ones (`which`), the reader's
own (`you`), and the acts: send, reveal, run (`exec`), approve or delete (`grant`), an
obligation (`must`), a secret, the model named (`address`), secrecy. Each language lists the
stems of its words for those parts (lower case, comma-separated; a stem matches the start of a
word, so `instrukcij` finds every case of it). `firewall_lexicon` reads `override`, `orders`,
`which` and `you` (a clause that drops orders), `firewall_cues` every class (a sentence scored
by its parts): an entry with a space is for the lexicon only, whose clauses may span words.

Scripts written without spaces (Lao, Khmer, Burmese) are matched as substrings, as Thai and CJK
are. A stem that begins common words of another language is left out or written longer
(Mongolian "март", forget, is Russian for March).
"""

from __future__ import annotations

LANGUAGES: dict[str, dict[str, str]] = {
    "serbo-croatian (latin)": {
        "override": "ignoriši, ignorisi, ignoriraj, ignorišite, zanemari, zanemarite, zaboravi, "
        "zaboravite, ne slijedi, ne sledi, ne prati",
        "orders": "uputstv, uputa, upute, instrukcij, smjernic, smernic, pravila",
        "which": "prethodn, ranij, gornj, navedene iznad, sistemsk",
        "you": "tvoj, tvoja, tvoje, vaš, vaše",
        "send": "pošalji, posalji, pošaljite, proslijedi, prosledi",
        "reveal": "prikaži, prikazi, ispiši, ispisi, otkrij",
        "secret": "lozink, ključ, kljuc, tajn",
        "exec": "pokreni, izvrši, izvrsi",
        "grant": "odobri, spoji, obriši, obrisi",
        "must": "moraš, moras, morate, trebaš",
    },
    "serbian / macedonian / bulgarian (cyrillic)": {
        "override": "игнориши, игнорирај, игнорирай, занемари, заборави, забрави, пренебрегни, "
        "не прати, не следвай",
        "orders": "упутств, упатств, упут, инструкциј, смерниц, насок",
        "which": "претходн, предходн, предишн, раниј, по-горе, горенаведен, системск",
        "you": "твој, твоја, твоје, ваш",
        "send": "пошаљи, испрати, изпрати",
        "reveal": "прикажи, испиши, покажи, открий",
        "secret": "лозинк, парол, кључ",
        "exec": "покрени, изврши, изпълни",
        "grant": "одобри, избриши, изтрий",
        "must": "мораш, морате, трябва",
    },
    "slovak / czech": {
        "override": "ignorujte, zabudnite, nevšímaj, prehliadni, neriaď, nedbej, nerespektuj",
        "orders": "inštrukci, instrukci, pokyn, pravidl",
        "which": "predchádzajúc, predošl, vyššie, skoršie, systémov, předchozí, dřívější",
        "you": "tvoj, tvoje, vaše, svoje",
        "send": "pošli, pošlite, odošli, nahraj",
        "reveal": "zobraz, vypíš, vypis, ukáž, prezraď",
        "secret": "hesl, kľúč, klíč, tajn",
        "exec": "spusti, spusť, vykonaj",
        "grant": "schváľ, schval, zmaž, smaž, zlúč",
        "must": "musíš, musis, musíte",
    },
    "slovenian": {
        "override": "ignoriraj, ignorirajte, pozabi, pozabite, prezri",
        "orders": "navodil, pravil, usmeritv",
        "which": "prejšnj, zgornj, sistemsk",
        "you": "tvoj, vaš",
        "send": "pošlji, naloži",
        "reveal": "prikaži, izpiši",
        "secret": "geslo, gesla, ključ",
        "exec": "zaženi, izvedi",
        "must": "moraš, morate",
    },
    "lithuanian": {
        "override": "ignoruok, ignoruokite, pamiršk, pamirškite, nepaisyk, nekreipk dėmesio",
        "orders": "instrukcij, nurodym, taisykl",
        "which": "ankstesn, aukščiau, sistemos",
        "you": "tavo, jūsų",
        "send": "išsiųsk, siųsk, nusiųsk, įkelk",
        "reveal": "parodyk, išvesk, atskleisk",
        "secret": "slaptažod, raktą, raktus",
        "exec": "paleisk, vykdyk, įvykdyk",
        "must": "privalai",
    },
    "latvian": {
        "override": "ignorē, aizmirsti, neievēro, nepievērs uzmanību",
        "orders": "instrukcij, norādījum, noteikum",
        "which": "iepriekšēj, augstāk, sistēmas",
        "you": "tavas, tavus, jūsu",
        "send": "nosūti, sūti, augšupielādē",
        "reveal": "parādi, izvadi, atklāj",
        "secret": "atslēg",
        "exec": "palaid, izpildi",
        "must": "tev jā",
    },
    "estonian": {
        "override": "ignoreeri, unusta, eira, ära järgi",
        "orders": "juhis, juhend, reegl",
        "which": "eelmis, varasem, ülaltoodud, süsteemi",
        "you": "sinu, teie",
        "send": "laadi üles",
        "reveal": "näita, väljasta",
        "secret": "parool, salasõn, võtm",
        "exec": "käivita",
        "must": "pead, peate",
    },
    "catalan / galician / basque": {
        "override": "oblida, oblideu, ignoreu, no facis cas, no segueixis, esquece, ez ikusi, "
        "ahaztu, baztertu",
        "orders": "instrucc, instrucións, regles, directriu, argibide, jarraibide, arauak",
        "which": "anteriors, prèvies, previs, del sistema, aurreko, lehenago",
        "you": "teves, vostres, túas, zure",
        "send": "envia, envieu, puja, bidali",
        "reveal": "mostra, imprimeix, revela, erakutsi",
        "secret": "contrasenya, pasahitz",
        "exec": "executeu, exekutatu",
        "grant": "aprova, fusiona, esborra",
        "must": "has de, heu de",
    },
    "albanian": {
        "override": "injoro, injoroni, harroni, shpërfill",
        "orders": "udhëzim, udhezim, rregull",
        "which": "mëparshm, meparshm, më sipër, sistemit",
        "you": "tuaja, tënde",
        "send": "dërgo, dergo, ngarko",
        "reveal": "shfaq, printo, zbulo",
        "secret": "fjalëkalim, çelës",
        "exec": "ekzekuto",
        "must": "duhet",
    },
    "icelandic / afrikaans / esperanto": {
        "override": "hunsaðu, gleymdu, ignoreer, verontagsaam, ignoru, forgesu",
        "orders": "leiðbeining, fyrirmæl, reglur, instruksies, reëls, instrukci, reguloj",
        "which": "fyrri, hér að ofan, bogenoemde, vroeëre, antaŭaj",
        "you": "þín, viaj",
        "send": "sendu, stuur, laai op, sendu",
        "reveal": "sýndu, wys, montru",
        "secret": "lykilorð, wagwoord, pasvort",
        "exec": "keyrðu, voer uit",
        "must": "moet",
    },
    "welsh / irish": {
        "override": "anwybydda, anwybyddwch, anghofia, déan neamhaird, ná tabhair aird, "
        "déan dearmad",
        "orders": "cyfarwyddiad, rheolau, treoracha, rialacha",
        "which": "blaenorol, uchod, roimhe, thuas",
        "you": "do chuid",
        "send": "anfon, seol",
        "reveal": "dangos, taispeáin",
    },
    "swahili / zulu / amharic / hausa / yoruba": {
        "override": "puuza, sahau, usifuate, ziba, khohlwa, ችላ በል, ችላ ይበሉ, እርሳ, ይርሱ, አትከተል, "
        "yi watsi, kar ka bi, manta, foju fo, gbagbe",
        "orders": "maagizo, maelekezo, maelezo, imiyalelo, imithetho, መመሪያ, ሕግጋት, ህጎች, "
        "umarni, umarnin, dokoki, ìtọ́ni, itoni, ìlànà",
        "which": "yaliyotangulia, zilizopita, ya awali, yangaphambilini, ngenhla, ቀደም, ቀዳሚ, "
        "ያለፉ, ከላይ, na baya, da suka gabata, ti tẹlẹ, tẹ́lẹ̀",
        "you": "yako, zako, wako, yakho, ያንተ, የአንተ, የእርስዎ",
        "send": "tuma, pakia, thumela, ላክ, ይላኩ, fi ranṣẹ",
        "reveal": "onyesha, chapisha, bonisa, አሳይ, nuna, fi han",
        "secret": "nenosiri, iphasiwedi, የይለፍ ቃል, kalmar sirri, ọrọ igbaniwọle",
        "exec": "endesha, tekeleza, qalisa, አስኪድ, gudanar",
        "must": "lazima, kufanele, አለብህ, dole ne",
    },
    "urdu / persian / pashto": {
        "override": "نظر انداز, نظرانداز, بھول جاؤ, بھول جائیں, بھول جا, مت مانو, "
        "پیروی نہ, پیروی نکن, اعتنا نکن, بېرته پام مه کوه, هېر کړه",
        "orders": "ہدایات, ہدایت, احکامات, اصول, قواعد, رہنمائی, دستورها, رهنمود, دستورالعمل, "
        "لارښوون",
        "which": "پچھلی, پچھلے, سابقہ, گزشتہ, اوپر دی, پہلے دی, قبلی, بالا, پیشین, سیستم, سسٹم, "
        "مخکینی",
        "you": "اپنی, اپنے, آپ کی, آپ کے, تمہاری, تمہارے, ستا",
        "send": "بھیج, بھیجو, بھیجیں, اپلوڈ, ارسال, بفرست, ولېږه",
        "reveal": "دکھاؤ, دکھائیں, ظاہر, نمایش, چاپ کن, نشان بده, ښکاره",
        "secret": "پاس ورڈ, پاسورڈ, رمز عبور, کلید, کلیدها, خفیہ",
        "exec": "چلاؤ, چلائیں, اجرا کن, اجرا کنید",
        "must": "ضرور, لازمی, باید",
    },
    "indic (hindi, marathi, nepali, punjabi, gujarati)": {
        "override": "दुर्लक्ष कर, दुर्लक्ष करा, विसरा, विसर, बेवास्ता गर, बिर्स, ध्यान मत दो, "
        "ध्यान न दें, ਅਣਡਿੱਠ, ਨਜ਼ਰਅੰਦਾਜ਼, ਭੁੱਲ ਜਾ, અવગણ, ભૂલી જા",
        "orders": "सूचना, सूचनाओं, हिदायत, निर्देशन, ਹਦਾਇਤ, ਨਿਰਦੇਸ਼, ਨਿਯਮ, સૂચના, નિર્દેશ, નિયમ",
        "which": "पहले के, पहले दिए, पहले दी, मागील, आधीच्या, वरील, अघिल्ला, माथिका, ਪਿਛਲੀ, ਪਿਛਲੇ, "
        "ਪਹਿਲਾਂ, અગાઉ, પહેલાની, ઉપરની",
        "you": "तुझ्या, तुमच्या, तिम्रो, ਤੁਹਾਡੇ, ਆਪਣੇ, તમારી, તમારા",
        "send": "भेजो, भेजें, भेज दो, पाठवा, पठाऊ, ਭੇਜ, મોકલ",
        "reveal": "दिखाओ, दिखाएं, प्रिंट करो, दाखवा, ਦਿਖਾ, બતાવ",
        "secret": "पासवर्ड, कुंजी, गुप्त, ਪਾਸਵਰਡ, પાસવર્ડ",
        "exec": "चलाओ, चलाएं, चालवा, ਚਲਾ, ચલાવ",
        "must": "ज़रूर, जरूर, अवश्य, आवश्यक, ਜ਼ਰੂਰ, જરૂર",
    },
    "bengali": {
        "override": "অগ্রাহ্য, ভুলে যান, ভুলে যাও, মানবে না, মেনো না",
        "orders": "নির্দেশ, নিয়মাবলী, প্রম্পট",
        "which": "পূর্ববর্তী, উপরের, আগের, সিস্টেম",
        "you": "তোমার, আপনার, তোর",
        "send": "পাঠাও, পাঠান, আপলোড",
        "reveal": "দেখাও, দেখান, প্রকাশ কর",
        "secret": "পাসওয়ার্ড, গোপন",
        "exec": "চালাও, চালান",
        "must": "অবশ্যই",
    },
    "dravidian (tamil, telugu, kannada, malayalam) and sinhala": {
        "override": "புறக்கணி, மறந்துவிடு, மறந்து விடு, மறந்துவிடுங்கள், பின்பற்றாதே, విస్మరించ, "
        "మర్చిపో, పట్టించుకోవద్దు, ನಿರ್ಲಕ್ಷಿಸ, ಮರೆತುಬಿಡ, ಮರೆತು ಬಿಡ, അവഗണിക്ക, മറക്ക, "
        "മറന്നേക്ക, නොසලකා, අමතක කර",
        "orders": "அறிவுறுத்தல், அறிவுறுத்தல்கள், வழிமுறை, விதிகள், கட்டளைகள், సూచనల, సూచనలు, "
        "నియమాల, ಸೂಚನೆ, ನಿಯಮ, നിർദ്ദേശ, നിയമ, උපදෙස්, උපදෙස, නීති",
        "which": "முந்தைய, முன்பு, மேலே, మునుపటి, పైన, ಹಿಂದಿನ, ಮೇಲಿನ, മുമ്പത്തെ, മുൻ, മുകളിലെ, පෙර, ඉහත",
        "you": "உங்கள், உன், నీ, మీ, ನಿಮ್ಮ, ನಿನ್ನ, നിങ്ങളുടെ, നിന്റെ, ඔබේ, ඔයාගේ",
        "send": "அனுப்பு, அனுப்புங்கள், పంపు, పంపండి, ಕಳುಹಿಸ, അയയ്ക്ക, යවන්න",
        "reveal": "காட்டு, காட்டுங்கள், అచ్చు, చూపించు, ತೋರಿಸ, കാണിക്ക, පෙන්වන්න",
        "secret": "கடவுச்சொல், రహస్య, పాస్‌వర్డ్, ಪಾಸ್‌ವರ್ಡ್, പാസ്‌വേഡ്, මුරපදය",
        "exec": "இயக்கு, செயல்படுத்து, అమలు, ಚಲಾಯಿಸ, പ്രവർത്തിപ്പിക്ക, ක්‍රියාත්මක",
        "must": "வேண்டும், తప్పక, ಮಾಡಲೇಬೇಕು, ചെയ്യണം, අනිවාර්යයෙන්",
    },
    "turkic and caucasus (azerbaijani, kazakh, uzbek, georgian, armenian)": {
        "override": "nəzərə alma, məhəl qoyma, unudun, елеме, елемеңіз, ұмыт, e'tiborsiz qoldir, "
        "e'tibor berma, unuting, უგულებელყავი, უგულებელყავით, დაივიწყე, დაივიწყეთ, անտեսիր, "
        "անտեսեք, մոռացիր, մոռացեք",
        "orders": "təlimat, qayda, нұсқаул, нұсқау, ереже, ko'rsatma, yo'riqnoma, qoida, "
        "ინსტრუქცი, მითითებ, წესებ, հրահանգ, կանոն",
        "which": "əvvəlki, yuxarıdakı, алдыңғы, жоғарыдағы, oldingi, yuqoridagi, წინა, ზემოთ, "
        "სისტემ, նախորդ, վերևի, համակարգ",
        "you": "sənin, сенің, сіздің, sening, sizning, შენი, თქვენი, քո, ձեր",
        "send": "göndər, жібер, yubor, გააგზავნე, ուղարկիր",
        "reveal": "göstər, көрсет, ko'rsat, აჩვენე, ցույց տուր",
        "secret": "şifrə, құпиясөз, құпия, პაროლ, գաղտնաբառ",
        "exec": "icra et, орында, bajar, გაუშვი, գործարկիր",
        "must": "məcbur, міндетті, shart, უნდა, պետք է",
    },
    "belarusian / mongolian": {
        "override": "ігнаруй, забудзь, не звяртай, үл тоомсорло, тоомсорлохгүй",
        "orders": "інструкцы, правіл, заавар, дүрэм",
        "which": "папярэдн, вышэй, өмнөх, дээрх",
        "you": "твае, ваш, чиний, таны",
        "send": "адпраў, илгээ",
        "reveal": "пакажы, харуул",
        "secret": "пароль, нууц үг",
        "exec": "запусці, ажиллуул",
    },
    "southeast asia (lao, khmer, burmese)": {
        "override": "ບໍ່ສົນໃຈ, ລືມ, មិនអើពើ, បំភ្លេច, លុបចោល, လျစ်လျူရှု, မေ့လိုက်",
        "orders": "ຄຳແນະນຳ, ຄຳສັ່ງ, ກົດ, សេចក្តីណែនាំ, ការណែនាំ, ច្បាប់, ညွှန်ကြားချက်, စည်းမျဉ်း",
        "which": "ກ່ອນໜ້າ, ທັງໝົດ, មុន, ខាងលើ, ទាំងអស់, ယခင်, အထက်ပါ, အားလုံး",
        "you": "ຂອງເຈົ້າ, របស់អ្នក, သင့်",
        "send": "ສົ່ງ, ផ្ញើ, ပို့",
        "reveal": "ສະແດງ, បង្ហាញ, ပြပါ",
        "secret": "ລະຫັດຜ່ານ, ពាក្យសម្ងាត់, စကားဝှက်",
    },
    "more of the big ones": {
        "override": "non considerare, non seguire più, non tenere conto, non tener conto, ignoruj wszystkie, pomiń wszystkie, "
        "не виконуй, не дотримуйся, ne tiens plus compte, olvídate de, esqueça, "
        "ignoriere, beachte nicht, hiçe say, bỏ qua tất cả, lờ đi, huwag sundin, "
        "jangan hiraukan, lupakan semua, ignorează, מחק מזכרונך, أهمل, 무시하고, 無視して",
        "orders": "vorgaben, hinweise, istruzioni, indicações, orientações, wskazówk, "
        "polecenia, інструкції, настанов, yönergeler, talimatlar, hướng dẫn, chỉ dẫn, "
        "tagubilin, panuto, arahan, panduan, הנחיה, توجيه",
        "which": "vorherigen, bisherigen, obigen, precedente, anteriormente, sopra indicate, "
        "finora, fino ad ora, "
        "wcześniej, попередні, вищезазначен, yukarıda, trước, nakaraan, naunang, "
        'sebelum ini, terdahulu, הנ"ל, أعلاه, 앞선, 上述, 前述',
        "you": "ihre, deine, tue, tuas, suas, twoje, твої, senin, của bạn, iyong, "
        "milikmu, kamu, אתה, أنت, 당신, 너의, 你们",
    },
}

# classes the lexicon's clause reads, under its names
LEXICON = {"override": "verbs", "orders": "nouns", "which": "which", "you": "yours"}


def entries(cls: str) -> tuple[str, ...]:
    """Every stem of `cls` over the languages, lower case, in a fixed order."""
    out: list[str] = []
    for words in LANGUAGES.values():
        out.extend(w.strip().lower() for w in words.get(cls, "").split(",") if w.strip())
    return tuple(dict.fromkeys(out))
